"""The PDF loader: pdfium pages (`page`), ruled tables (`tables`), layout into blocks (`furniture`, `lines`, `groups`,
`headings`, `joining`), the document (`loader`)."""
