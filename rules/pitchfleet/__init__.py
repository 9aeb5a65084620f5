"""Pitch Fleet rules engine (rulebook: ``shared/rulebooks/pitch-fleet.txt``).

Pure and deterministic: all randomness comes from ``seed=``/``rng=``, and every deck and deal can
be given explicitly.

API
---
A turn is played in steps; every action returns the :class:`~rules.base.Event` values it caused
(each award explained in words and numbers) and raises a :class:`~rules.base.RulesError` subclass,
leaving the state unchanged, when it is illegal::

    from rules.pitchfleet import (BLIND_SHOT, Game, Location, LocationKind, ShipId, ShipResult, ShotResult)

    red1, blue1 = ShipId("red", 1), ShipId("blue", 1)
    g = Game(["Ann", "Bo"], planet_deck=["venus", "mars", "earth"],     # or just Game(4, seed=7)
             power_deck=[BLIND_SHOT] * 50, team_deals=[(red1, blue1)] * 2)
    p = g.current_player                    # 0: Ann holds red 1, the starting player; g.start "venus", g.goal "mars"
    ship = g.legal_ships()[0]               # her own ship or a teammate's: red1
    card = g.legal_cards()[0]               # the face-up top card of any pile (or give a pile index)
    g.begin_turn(p, ship, card)             # red1 is off the board: placed on Venus
    sat = Location("mars", "satellite1", LocationKind.SATELLITE, stars=2)
    ev = g.resolve_shot(ShotResult(ship, (ShipResult(ship, locations={sat}, moved=True),)))
    assert ev[-1].text == "Red ship 1 arrived Mars' 2-star satellite: +2 VP to Ann"
    if g.is_restart_allowed():              # no collision and a restart card: undo the shot, same card again
        g.restart()
        g.resolve_shot(ShotResult(ship, (ShipResult(ship, True, moved=True),)))   # outbound: -1 VP
    g.end_turn()                            # (a card drawn at a charging satellite: use_drawn_card() shoots
                                            #  again now; end_turn() keeps it face down)
    assert g.scores() == (2, 3) and g.current_player == 1
    g.status(); g.outcome()                 # Status flags; Outcome(winners, scores, reason) once over

``play_turn(player, ship, card, result)`` does begin/resolve/end in one call.  Phases:
:class:`Phase` CHOOSE -> SHOOT -> RESOLVED (-> SHOOT again after a restart or a drawn card used) -> CHOOSE.

Solo / family mode: :class:`SoloGame` (``shoot(result)``, ``fail(reason)``, ``score``, ``evaluation()``).

Choices where the rulebook is silent
------------------------------------
* Team cards: for n players the first n of red 1, blue 1, red 2, blue 2, red 3, blue 3 (red and
  blue alternately, as balanced as possible: 3 players = 2 red v 1 blue, 5 = 3 v 2); the card
  of a player is the ship they control. The starting-player icon is on red 1: its holder starts
  each stage. The starting player token then passes left (next index) each round.
* Power card piles are shared: any player picks the face-up top card of any pile (a pile's next
  card stays face down until the round ends, so each pile gives one card a round and the 3n cards
  last exactly three rounds).
* Decks: 50 basic cards = 5 of each of the 10 effects; 25 advanced = 5 of each of 5;
  ``advanced=True`` shuffles the advanced cards into the Power Deck. Card names other than Magnetic
  Barrier and Warp Drive are ours; ids are stable (:mod:`rules.pitchfleet.cards`).
* "Gain N VP if you arrive any X" pays once per shot; "for each" pays per item; Reverse Gravity
  turns every VP satellite arrived, on any board, into a loss of its stars; Asteroid Miner pays
  +1 (once) and cancels the asteroid-belt losses on the goal board.
* Safety Net: when only the moved ship of your team goes outbound, rule 1 does not apply (no loss)
  and rule 2 and the arrival examination go on. Chain Reaction: only while the moved ship stays
  inbound; then rule 1 is ignored, rule 2 still applies and +1 VP per other outbound ship.
* Decoy Beam: the chosen ship leaves the board and a beam (engine-numbered) takes its place; the
  beam is shot and stays on the board; the moved object is a beam, so no location effects.
* Magnetic Barrier beams (and any beam) that a shot moves are removed from the board.
* Springboard failed (``ShotResult.on_springboard``): the ship goes back, nothing is examined.
* Charging satellite: the drawn card waits for a choice; ``end_turn()`` keeps it face down
  (the default); ``use_drawn_card()`` shoots again this turn with it (any team ship; restart
  still possible while the restart card is held). Two face-down cards = 1 VP in ``scores()``.
* No score below zero: a loss takes VP tokens only, down to zero (face-down cards are kept).
* A ship missing from the scene that was on the board counts as outbound.
* An explicit ``planet_deck`` may be of any length 2..9 (stages = cards - 1).
* Solo: challenge VP and move limits, see :mod:`rules.pitchfleet.solo`.
"""

from .cards import (ADVANCED_CARDS, ALL_CARDS, ASTEROID_MINER, BASIC_CARDS, BEAM_CUE, BLIND_SHOT, CHAIN_REACTION,
                    COMBO, DECOY_BEAM, DOMINO, HOP, KNUCKLE, MAGNETIC_BARRIER, RECHARGE, REVERSE_GRAVITY, SAFETY_NET,
                    SPRINGBOARD, WARP_DRIVE, PowerCard, advanced_deck, basic_deck, card)
from .game import MAX_BEAMS, PILE_SIZE, ROUNDS_PER_STAGE, START_VP, TEAM_BONUS_VP, Game, Phase, Status
from .model import (PLANET_CARDS_BY_PLAYERS, PLANETS, STARTING_TEAM_CARD, TEAM_CARD_ORDER, TEAMS, BeamResult, Location,
                    LocationKind, ShipId, ShipResult, ShotResult, team_cards_for)
from .solo import CHALLENGES, EVALUATION, RUN_LENGTH, SOLO_SHIP, ChallengeCard, Progress, SoloGame, Verdict, evaluation

__all__ = [
    "ADVANCED_CARDS", "ALL_CARDS", "ASTEROID_MINER", "BASIC_CARDS", "BEAM_CUE", "BLIND_SHOT", "CHAIN_REACTION",
    "COMBO", "DECOY_BEAM", "DOMINO", "HOP", "KNUCKLE", "MAGNETIC_BARRIER", "RECHARGE", "REVERSE_GRAVITY",
    "SAFETY_NET", "SPRINGBOARD", "WARP_DRIVE", "PowerCard", "advanced_deck", "basic_deck", "card",
    "MAX_BEAMS", "PILE_SIZE", "ROUNDS_PER_STAGE", "START_VP", "TEAM_BONUS_VP", "Game", "Phase", "Status",
    "PLANET_CARDS_BY_PLAYERS", "PLANETS", "STARTING_TEAM_CARD", "TEAM_CARD_ORDER", "TEAMS", "BeamResult",
    "Location", "LocationKind", "ShipId", "ShipResult", "ShotResult", "team_cards_for",
    "CHALLENGES", "EVALUATION", "RUN_LENGTH", "SOLO_SHIP", "ChallengeCard", "Progress", "SoloGame", "Verdict",
    "evaluation",
]
