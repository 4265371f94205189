"""Prose in eleven languages and the legacy code pages each is commonly stored in, cut into short and long files.

The texts were written for chunkctl's tests (everyday prose about weather, trains,
libraries and kitchens; no quotations), so they are free of third-party rights, and they
use only characters every listed code page of their language holds (no typographic
quotes or dashes outside Latin-1, only JIS X 0208 kanji, only Big5 hanzi).

`cases()` cuts each text at word (or, for Chinese and Japanese, character) boundaries
into files of about 24, 48, 96, 200, 400 and all characters, several per length from
different starting sentences, each holding at least one non-ASCII character. Used by
tests/loaders/test_decode_accuracy.py and bench/encodings.py (the accuracy table of
docs/loaders.md).
"""

from __future__ import annotations

import re

TEXTS: dict[str, tuple[tuple[str, ...], str]] = {
    # family: (code pages, text)
    "Finnish": (("latin-1",), (
        "Vielä ehdit perehtyä hakemukseen ennen määräaikaa. Kirjaston lukusali on auki myöhään "
        "torstaisin, ja siellä on hiljaista. Pöydän ääressä istui vanha mies, joka luki sanomalehteä "
        "ääneen itsekseen. Syksyllä järven jää on vielä ohutta, eikä sen päälle saa mennä. Äiti keitti "
        "kahvia ja leikkasi pullaa lapsille, jotka tulivat koulusta märkinä. Säätiedotus lupasi "
        "huomiselle lunta ja kovaa pohjoistuulta. Junan myöhästyminen johtui radalle kaatuneesta "
        "puusta, kertoi konduktööri matkustajille. Työpäivän jälkeen kävelimme rantaan katsomaan "
        "auringonlaskua. Hänen mielestään yö oli liian lyhyt nukkumiseen ja liian pitkä odottamiseen. "
        "Sähkökatko kesti tunnin, mutta kukaan ei valittanut.")),
    "German": (("latin-1",), (
        "Über die Brücke fährt jeden Morgen ein Zug, der fast immer pünktlich ist. Die Bäckerei an der "
        "Ecke öffnet um sechs Uhr, und schon um halb sieben ist das Brot größtenteils verkauft. Im "
        "Frühling blühen die Obstbäume am Fluss, während die Kinder auf den Wiesen spielen. Meine "
        "Großmutter erzählte oft von den Wintern ihrer Jugend, als der See völlig zugefroren war. "
        "Die Straße wird nächste Woche gesperrt, weil die Leitungen erneuert werden müssen. Für die "
        "Prüfung muss man die Gesetze kennen und die Übungen regelmäßig wiederholen. Abends saßen wir "
        "draußen und hörten dem Regen zu, der leise auf das Vordach fiel. Schließlich kam der Bus "
        "doch noch, mit zwanzig Minuten Verspätung.")),
    "French": (("latin-1",), (
        "Le marché du samedi commence très tôt, avant même que le soleil ne se lève sur la place. "
        "Les élèves ont visité le château et découvert une bibliothèque où les livres étaient "
        "rangés par année. À midi, la boulangère a fermé sa boutique pour déjeuner avec sa fille. "
        "Il a plu toute la journée, mais la promenade près de la rivière était agréable quand même. "
        "Ce garçon rêve de devenir pêcheur comme son grand-père, qui naviguait déjà à quinze ans. "
        "Nous avons préparé une soupe de légumes et un gâteau aux noix pour la fête du village. "
        "La réunion a été reportée à jeudi prochain, faute de salle disponible. Où est passée la "
        "clé de la cave ? Personne ne s'en souvient, et la porte reste fermée depuis l'été.")),
    "Czech": (("cp1250", "iso-8859-2"), (
        "Příští týden se v knihovně koná přednáška o historii města a jeho řemeslníků. Ráno bylo "
        "chladno, ale odpoledne se vyjasnilo a děti si šly hrát k řece. Vlak do Brna měl zpoždění "
        "dvacet minut kvůli opravě trati u nádraží. Babička upekla koláče s tvarohem a švestkami, "
        "které voněly po celém domě. Na horách napadl první sníh a silnice byly kluzké. Učitelka "
        "vysvětlila žákům, proč se listí na podzim barví do žluta a červena. Večer jsme seděli u "
        "ohně a povídali si o cestách, které jsme ještě nepodnikli. Obchod na náměstí zavírá v šest "
        "hodin, takže musíme pospíchat. Řidič autobusu nám ochotně poradil, kde vystoupit.")),
    "Polish": (("cp1250", "iso-8859-2"), (
        "Zażółć gęślą jaźń to zdanie, które zawiera wszystkie polskie litery. W piątek rano pociąg "
        "do Krakowa odjechał punktualnie, choć na peronie było tłoczno. Babcia zawsze mówiła, że "
        "jesienią las pachnie grzybami i wilgotną ziemią. Dzieci wróciły ze szkoły przemoczone, bo "
        "deszcz zaczął padać nagle. Biblioteka miejska będzie zamknięta w środę z powodu remontu. "
        "Wieczorem usiedliśmy przy stole i rozmawialiśmy o wakacjach nad morzem. Ślusarz obiecał, "
        "że naprawi zamek jutro przed południem. Mróz ścisnął jezioro tak mocno, że można było "
        "jeździć na łyżwach. Łódź rybacka wróciła do portu dopiero po zmroku.")),
    "Russian": (("cp1251", "koi8-r"), (
        "Вечером на станции было тихо, только ветер шевелил листья старых тополей. Поезд до Москвы "
        "опоздал на сорок минут из-за снега на путях. Бабушка испекла пирог с капустой и позвала "
        "всех соседей к столу. В библиотеке открылся новый читальный зал с большими окнами. Дети "
        "катались на санках с горки до самой темноты. Учитель объяснил, почему зимой дни короче, "
        "чем летом. Мы долго спорили о том, куда поехать в отпуск, но так ничего и не решили. "
        "Ёлку поставили в углу гостиной и украсили её стеклянными шарами. Утром река покрылась "
        "тонким льдом, и рыбаки остались на берегу.")),
    "Hebrew": (("cp1255",), (
        "הרכבת לירושלים יצאה באיחור של עשרים דקות בגלל עבודות על המסילה. בבוקר היה קר, אבל "
        "בצהריים השמש יצאה והילדים הלכו לשחק בפארק. הספרייה העירונית פתוחה עד שמונה בערב בימי "
        "חמישי. סבתא אפתה עוגת תפוחים והזמינה את כל השכנים לקפה. המורה הסבירה לתלמידים למה "
        "העלים משנים את צבעם בסתיו. בערב ישבנו במרפסת ודיברנו על הטיול שתכננו לקיץ. החנות "
        "בכיכר נסגרת בשש, ולכן צריך למהר. הנהג של האוטובוס עזר לנו למצוא את התחנה הנכונה.")),
    "Japanese": (("shift_jis", "euc-jp"), (
        "今朝は雨が降っていたので、駅まで歩くのに時間がかかりました。図書館の新しい閲覧室は"
        "窓が大きく、午後になると光がたくさん入ります。祖母は毎年秋になると栗ご飯を炊いて、"
        "近所の人たちにも配っていました。電車は事故の影響で二十分ほど遅れて到着しました。"
        "子供たちは川のそばで魚を捕まえようとしましたが、一匹も釣れませんでした。明日の会議は"
        "十時から始まる予定ですが、資料はまだ届いていません。夜になると町は静かになり、遠くで"
        "犬の鳴く声だけが聞こえました。先生は生徒に、なぜ冬は日が短いのかを説明しました。")),
    "Chinese (simplified)": (("gb18030",), (
        "今天早上下了一场大雨，路上的行人都撑着伞匆匆赶路。图书馆新开了一间阅览室，窗户很大，"
        "下午阳光充足。奶奶每年秋天都会做桂花糕，分给邻居们品尝。火车因为铁路维修晚点了二十分钟，"
        "站台上挤满了等车的人。孩子们在河边玩了一下午，想抓几条小鱼，可是一条也没抓到。明天的会议"
        "上午十点开始，但是材料还没有准备好。晚上小镇安静下来，只能听到远处几声狗叫。老师向学生们"
        "解释了为什么冬天白天短，夏天白天长。")),
    "Chinese (traditional)": (("big5",), (
        "今天早上下了一場大雨，路上的行人都撐著傘匆匆趕路。圖書館新開了一間閱覽室，窗戶很大，"
        "下午陽光充足。奶奶每年秋天都會做桂花糕，分給鄰居們品嘗。火車因為鐵路維修晚點了二十分鐘，"
        "月台上擠滿了等車的人。孩子們在河邊玩了一下午，想抓幾條小魚，可是一條也沒抓到。明天的會議"
        "上午十點開始，但是資料還沒有準備好。晚上小鎮安靜下來，只能聽到遠處幾聲狗叫。老師向學生們"
        "解釋了為什麼冬天白天短，夏天白天長。")),
    "Korean": (("cp949", "euc-kr"), (
        "오늘 아침에는 비가 많이 내려서 버스가 평소보다 늦게 왔다. 도서관은 월요일마다 문을 닫기 때문에 "
        "우리는 화요일에 다시 가기로 했다. 할머니께서는 시장에서 사 온 배추로 김치를 담그셨다. 기차역 앞 "
        "빵집은 아침 일곱 시에 문을 열고 저녁 아홉 시에 닫는다. 겨울이 오면 강물이 얼어서 아이들이 썰매를 "
        "타러 나온다. 선생님은 학생들에게 매일 책을 삼십 분씩 읽으라고 말씀하셨다. 주말에는 가족과 함께 "
        "공원에 가서 점심을 먹고 산책을 했다. 새로 생긴 식당의 음식이 맛있다는 소문이 동네에 금방 퍼졌다. "
        "내일은 날씨가 맑고 따뜻할 것이라는 일기 예보가 나왔다. 우리는 저녁을 먹은 뒤 창밖으로 지는 해를 "
        "바라보며 이야기를 나누었다.")),
}
# The Western texts again, as classic Mac OS and DOS stored them (Mac Roman, code page
# 850): rare pages, which detection takes only when no common page reads the bytes
# plausibly.
for _language in ("Finnish", "German", "French"):
    TEXTS[f"{_language} (Mac, DOS)"] = (("mac-roman", "cp850"), TEXTS[_language][1])

FAMILIES: dict[str, tuple[str, ...]] = {
    # the families the accuracy table reports, each a set of languages
    "Latin-1 (Finnish, German, French)": ("Finnish", "German", "French"),
    "Central European (Czech, Polish)": ("Czech", "Polish"),
    "Cyrillic (Russian)": ("Russian",),
    "Hebrew": ("Hebrew",),
    "Japanese": ("Japanese",),
    "Chinese GB18030": ("Chinese (simplified)",),
    "Chinese Big5": ("Chinese (traditional)",),
    "Korean": ("Korean",),
    "Western on Mac and DOS (Finnish, German, French)": ("Finnish (Mac, DOS)", "German (Mac, DOS)",
                                                         "French (Mac, DOS)"),
}

LENGTHS = (24, 48, 96, 200, 400, 0)
"""File lengths in characters (about: cut at a boundary); 0 is the whole text."""
PER_LENGTH = 6
"""Files per language, code page and length, from different starting sentences."""

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")


def _cut(text: str, start: int, length: int, cjk: bool) -> str:
    """`text[start:]` cut to about `length` characters at a word boundary (any character for CJK)."""
    piece = text[start:start + length]
    if cjk or start + length >= len(text):
        return piece.strip()
    space = piece.rfind(" ")
    return (piece[:space] if space > 0 else piece).strip()


def cases() -> list[tuple[str, str, str, int, str]]:
    """Every sample file: (language, code page, family, length asked for, text).

    Returns:
        the files in a fixed order; the bytes are `text.encode(code page)`.
    """
    out = []
    for family, languages in FAMILIES.items():
        for language in languages:
            codecs_, text = TEXTS[language]
            cjk = language.startswith(("Chinese", "Japanese"))
            starts = [m.end() for m in _SENTENCE.finditer(text) if m.end() < len(text)]
            starts = [0] + starts
            for codec in codecs_:
                for length in LENGTHS:
                    if not length:
                        out.append((language, codec, family, 0, text))
                        continue
                    seen: set[str] = set()
                    for start in starts:
                        piece = _cut(text, start, length, cjk)
                        if piece in seen or piece.isascii():
                            continue
                        seen.add(piece)
                        out.append((language, codec, family, length, piece))
                        if len(seen) == PER_LENGTH:
                            break
    return out
