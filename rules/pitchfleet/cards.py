"""Pitch Fleet power cards: the ten basic and five advanced effects, with stable ids and rulebook text.

The rulebook prints no card names and no distribution; our choices:

* names: the two the rulebook mentions ("Magnetic Barrier", "Warp Drive") and descriptive ones for
  the rest; the ``id`` is the stable machine name;
* the basic Power Deck (50 cards) holds 5 copies of each of the 10 basic effects; the advanced
  deck (25 cards) 5 copies of each of the 5 advanced effects;
* a card saying "gain N VP if you arrive any X" pays once per shot however many X the ship
  arrives; cards saying "for each" pay per item; Reverse Gravity turns every VP satellite arrived
  (any board) into a loss of its stars.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import _Value


@dataclass(frozen=True, order=True)
class PowerCard(_Value):
    """A power card: ``id`` (stable), ``name``, ``text`` (rulebook wording), ``advanced`` (gold border).

    ``declared``: what the shooter must do that only a person can check (recorded as declared);
    ``relocates``: the card moves the ship before the shot (``placed=`` tells where);
    ``places_beam``: the card puts a magnetic beam on the board before the shot.
    """

    id: str
    name: str
    text: str
    advanced: bool = False
    declared: str = ""
    relocates: bool = False
    places_beam: bool = False

    def __str__(self) -> str:
        return self.name


ASTEROID_MINER = PowerCard(
    "asteroid_miner", "Asteroid Miner",
    "Gain 1 VP if you arrive any asteroid belt. If you arrive the asteroid belt of the goal planet, "
    "you don't lose 1 VP and gain 1 VP instead.")
DOMINO = PowerCard(
    "domino", "Domino",
    "For each other Starship that is \"knocked\" by the moved Starship and arrives on any planet, you gain 1 VP.")
REVERSE_GRAVITY = PowerCard(
    "reverse_gravity", "Reverse Gravity",
    "If you arrive any VP satellite, you lose points instead of gain points.")
MAGNETIC_BARRIER = PowerCard(
    "magnetic_barrier", "Magnetic Barrier",
    "Place a magnetic beam anywhere without touching any other Starship or beam, then make your move. "
    "The beam would stay on the board until it is knocked by any Starship; remove it from the board after that.",
    places_beam=True)
BEAM_CUE = PowerCard(
    "beam_cue", "Beam Cue",
    "You use a beam instead of a finger to shoot Starship. You still can't move by \"pushing.\"",
    declared="shot with a magnetic beam instead of a finger, without pushing")
WARP_DRIVE = PowerCard(
    "warp_drive", "Warp Drive",
    "Before movement, relocate the Starship you attempt to move on any planet other than the goal planet.",
    relocates=True)
RECHARGE = PowerCard(
    "recharge", "Recharge",
    "You gain 1 VP if you arrive any charging planet.")
BLIND_SHOT = PowerCard(
    "blind_shot", "Blind Shot",
    "Shooting without your eyes open. That's right, close them!",
    declared="shot with eyes closed")
SAFETY_NET = PowerCard(
    "safety_net", "Safety Net",
    "You won't lose point if you outbound the moved Starship. Other outbound examination still follows.")
HOP = PowerCard(
    "hop", "Hop",
    "Before movement, relocate the Starship you attempt to move by the length of the long side of this card, "
    "in any direction you wish. If the Starship is not on the board, place it on the starting planet first, "
    "adjust it by the length, and then make your move. The Starship cannot touch other Starship or beam after "
    "this adjustment.",
    relocates=True, declared="relocated the ship by the length of the card's long side")

KNUCKLE = PowerCard(
    "knuckle", "Knuckle Shot",
    "Use the second joint of your index finger to shoot Starship. After the movement, if your Starship "
    "arrives any planet, gain 1 VP.",
    advanced=True, declared="shot with the second joint of the index finger")
COMBO = PowerCard(
    "combo", "Combo",
    "After the movement, if your Starship arrives two or more non-asteroid-belt special location, gain 2 VP. "
    "Do not count the location that you start with.",
    advanced=True)
DECOY_BEAM = PowerCard(
    "decoy_beam", "Decoy Beam",
    "Replace the Starship into a beam by placing the beam in the same location. If you select a Starship "
    "that is not on the board, put the beam on the starting planet. You gain 1 VP for each opponent's "
    "Starship you knocked, with a maximum of 2 VP.",
    advanced=True, places_beam=True)
CHAIN_REACTION = PowerCard(
    "chain_reaction", "Chain Reaction",
    "You gain 1 VP for each Starship other than the moving Starship that outbounds (that includes outbounding "
    "Starships of your own team, as long as the moved Starship stays inbound.) Ignore [Outbound Examination "
    "rule 1.] in this case.",
    advanced=True)
SPRINGBOARD = PowerCard(
    "springboard", "Springboard",
    "Use this card as a springboard by putting a beam underneath as a fulcrum, adjust the angle freely. Shoot "
    "your Starship from this springboard. You gain 3 VP if it arrives any planet. The move is considered failed "
    "if Starship stays on the springboard after your attempt, and put it back to the same location before move.",
    advanced=True, declared="shot from the card used as a springboard over a beam")

BASIC_CARDS: tuple[PowerCard, ...] = (ASTEROID_MINER, DOMINO, REVERSE_GRAVITY, MAGNETIC_BARRIER, BEAM_CUE,
                                      WARP_DRIVE, RECHARGE, BLIND_SHOT, SAFETY_NET, HOP)
ADVANCED_CARDS: tuple[PowerCard, ...] = (KNUCKLE, COMBO, DECOY_BEAM, CHAIN_REACTION, SPRINGBOARD)
ALL_CARDS: dict[str, PowerCard] = {c.id: c for c in BASIC_CARDS + ADVANCED_CARDS}

COPIES_PER_BASIC_EFFECT = 5
COPIES_PER_ADVANCED_EFFECT = 5


def card(card_id: str) -> PowerCard:
    """The power card with this id (``KeyError`` for an unknown id)."""
    return ALL_CARDS[card_id]


def basic_deck() -> list[PowerCard]:
    """The 50 basic power cards (5 of each effect), unshuffled."""
    return [c for c in BASIC_CARDS for _ in range(COPIES_PER_BASIC_EFFECT)]


def advanced_deck() -> list[PowerCard]:
    """The 25 advanced power cards (5 of each effect), unshuffled."""
    return [c for c in ADVANCED_CARDS for _ in range(COPIES_PER_ADVANCED_EFFECT)]
