"""The glossary page: :data:`explainer.i18n.glossary.GLOSSARY` as a table, in the reader's
language first (the other beside it)."""

from __future__ import annotations

import html

from .. import i18n
from ..i18n import _
from ..i18n.glossary import GLOSSARY

_CELL = "padding:3px 10px;border-bottom:1px solid #e5e7eb;vertical-align:top;text-align:left"


def glossary_html() -> str:
    zh_first = i18n.language() == "zh-CN"
    names = [i18n.LANGUAGES["zh-CN"], i18n.LANGUAGES["en"]]
    head = [*(names if zh_first else names[::-1]),
            _("in CUDA"), _("used by"), _("notes")]
    rows = []
    for t in GLOSSARY:
        zh, en = f'<b lang="zh-CN">{html.escape(t.zh)}</b>', f'<span lang="en">{html.escape(t.en)}</span>'
        used = _(", ").join(_(d) for d in t.used_by) if t.used_by else _("none of the documents")
        note = _(t.note) if t.note else ""
        if t.rejected:
            note = (note + _("; ") if note else "") + _("not: {words}", words="、".join(t.rejected))
        cells = [zh if zh_first else en, en if zh_first else zh, f"<code>{html.escape(t.code)}</code>" if t.code else "",
                 html.escape(used), html.escape(note)]
        rows.append(f'<tr class="explainer-glossary-term" data-en="{html.escape(t.en, quote=True)}">'
                    + "".join(f'<td style="{_CELL}">{c}</td>' for c in cells) + "</tr>")
    th = "".join(f'<th style="{_CELL}">{html.escape(h)}</th>' for h in head)
    return (f'<table class="explainer-glossary" style="font-size:14px;border-collapse:collapse"><tr>{th}</tr>'
            + "".join(rows) + "</table>")
