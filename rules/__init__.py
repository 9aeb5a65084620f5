"""Pure game engines: no I/O, no OpenCV; numpy optional.

Every game is one module of the same shape (python-chess style):

* value types (frozen dataclasses) for what the game talks about: players, pieces, cards, shots;
* a ``Game`` class holding the state, with ``is_*`` predicates, ``legal_*``/``generate_*`` queries,
  action methods that return the :class:`~rules.base.Event` values they caused, ``scores()``,
  ``status()`` (a flag value for odd positions) and ``outcome()`` (``None`` until the game ends);
* illegal calls raise a subclass of :class:`~rules.base.RulesError`.

The referee (``referee/``) turns the vision judgement of a settled scene into the engine's input
value types; the engines never see pixels or millimetres they did not get from it.
"""
