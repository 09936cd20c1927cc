"""Predict, then reveal: a page's questions (``common.js`` + ``quiz.js``), their answers and the
model's reasons computed by :mod:`explainer.model.questions`.

The browser reads and checks what a student types against the answers sent with the questions,
and shows the model's reason for a wrong one; "Show the step" moves the page's stepper (its
front end's ``explainerView.show``) to the block, thread and step that show the answer.
Live, "Another one" asks Python for the next question set; an exported static page embeds
:data:`STATIC_SETS` sets and steps through them.
"""

from __future__ import annotations

from .. import resources
from ..i18n import _
from ..model import questions as Q
from .store import STATIC_BUDGET, BrowserView, keyed_store

#: Question sets an exported static page holds.
STATIC_SETS = 8
#: Where ``quiz.js`` finds the view a question's ``show`` names (the page's stepper).
SELECTORS = {"tiled": ".explainer-stepper"}
EXHAUSTED = ("That was the last of the {n} question sets this page holds; here is set 1 again. The live app "
             "(tiled-explainer serve) or JupyterLab makes new ones.")  # (translated where it is used)


def hint(form: dict) -> str:
    """What the answer field shows before anything is typed."""
    kind = form["kind"]
    if kind == "cells":
        text = _(" and ").join(f"{n}[row][col]" for n in form["names"])
        return text + (_(" or none") if form.get("empty") == "none" else "")
    if kind == "cellset":
        return ", ".join(f"{n}[row][col]" for n in form["names"]) + ", …"
    if kind == "ints":
        return ", ".join(form["names"])
    if kind == "choice":
        return " / ".join(label for _k, label, _w in form["options"])
    return {"int": _("a whole number"), "number": _("a number"), "percent": _("a percentage")}[kind]


def question_sets(page: str, seeds, pool=None) -> list[dict]:
    """The questions of ``page`` for each seed, as the browser gets them."""
    return [{"seed": int(s), "questions": [{**q.to_dict(), "hint": hint(q.form)} for q in Q.questions(page, s, pool)]}
            for s in seeds]


def quiz_meta(page: str, seeds, pool=None) -> dict:
    sets = question_sets(page, seeds, pool)
    return {"view": "quiz", "page": Q.page_name(page), "sets": sets, "selectors": SELECTORS,
            "exhausted": _(EXHAUSTED, n=len(sets))}


class QuizView(BrowserView):
    """The questions' front end (``common.js`` + ``quiz.js``); :class:`Quiz` fills it."""

    NAME = "quiz"
    FRONT_END = ("common.js", "quiz.js")
    _esm = resources.front_end(*FRONT_END)


class Quiz:
    """A page's questions for one seed (live: "Another one" asks for the next seed). ``pool``
    limits the launches live, ``static_pool`` those of an exported page (the launches and blocks
    its stepper holds: :mod:`explainer.model.questions`)."""

    def __init__(self, page: str, seed: int = 1, pool=None, static_pool=None, static_sets: int = STATIC_SETS):
        self.page = Q.page_name(page)
        self.pool, self.static_pool, self.static_sets = pool, static_pool, static_sets
        self.view = QuizView()
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self._set(int(seed))

    @property
    def widget(self) -> QuizView:
        return self.view

    def _set(self, seed: int) -> None:
        self.questions = Q.questions(self.page, seed, self.pool)
        self.seed = seed
        self.view.show(quiz_meta(self.page, [seed], self.pool), b"")

    def another(self) -> None:
        """The next question set."""
        self._set(self.seed + 1)

    def _on_msg(self, widget, content, buffers):
        if isinstance(content, dict) and content.get("cmd") == "another":
            try:
                self.another()
            except (ValueError, AssertionError) as e:
                self.view.fail(e)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """What an exported page embeds: :data:`STATIC_SETS` question sets in one payload."""
        meta = quiz_meta(self.page, range(1, self.static_sets + 1), self.static_pool)
        return keyed_store(lambda _: (dict(meta), b""), [], "quiz", budget)
