from prism_lineage.terminal import printable


def test_escape_sequences_are_shown_not_sent():
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("bell\x07") == "bell\\x07"
    assert printable("c1\x9bcsi") == "c1\\x9bcsi"
    assert printable("rtl\u202eevil") == "rtl\\u202eevil"


def test_newlines_forge_no_lines_unless_a_block():
    assert printable("one\ntwo\tthree") == "one\\ntwo\\tthree"
    assert printable("one\ntwo", newlines=True) == "one\ntwo"


def test_ordinary_text_is_unchanged():
    text = "analytics.orders — Zoë's table (ünïcode)"
    assert printable(text) == text
