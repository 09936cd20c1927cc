"""The ways in: the command line (:mod:`.cli`), the Voila app for a lecture hall (:mod:`.serve`),
static pages (:mod:`.export`) and the ``bench`` command (:mod:`.bench`)."""
