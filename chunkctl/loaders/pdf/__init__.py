"""The PDF loader: pdfium pages (`page`), layout into blocks (`layout`), ruled tables (`tables`), the document (`loader`)."""
