"""The ``tableref`` command.

Every verb has ``--help``.  Deliberate refusals (bad input, a board that is not in the photo, a
calibration out of bounds) print one line ``tableref: error: <what is wrong>; <what to do>`` on
stderr and exit with status 2, writing nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tableref import __version__
from tableref.errors import InputError, NotBuiltYet, TablerefError

GAMES = ["pitchfleet", "pitrush", "galaktico", "asfccg"]


class _Group(click.Group):
    """A click group that turns our deliberate errors into one line and exit status 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TablerefError as e:
            _fail(str(e))
        except _rules_error() as e:  # an illegal call into a game engine from a manifest
            _fail(f"rules: {e}")
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


def _rules_error():
    from rules.base import RulesError

    return RulesError


def _compiled(say=None) -> float:
    """Have the pose fit compiled (numba) before the work starts, and say so where that takes a
    while: once per install and machine, about 20 s; later, a load from the cache.  ``say(text)``
    shows the news in a display already live (``say(None)`` takes it back); else a spinner does.
    Returns the seconds it took.

    Then what is loaded by now (the libraries, the compiled fit, the calibration) is frozen out of
    the garbage collector's full passes: it lives as long as the process, and a full pass over its
    ~140,000 objects held up one frame in five by ~35 ms."""
    import gc
    import threading
    import time

    from vision.kernels import compile_all

    t0 = time.perf_counter()
    t = threading.Thread(target=compile_all, daemon=True)
    t.start()
    t.join(1.0)
    if t.is_alive():
        news = "compiling the pose fit (the first run after installing, ~20 s)"
        if say is not None:
            say(news)
            t.join()
            say(None)
        else:
            from rich.console import Console

            with Console(stderr=True).status(news):
                t.join()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t0


def _fail(message: str) -> None:
    click.echo(f"tableref: error: {message}", err=True)
    sys.exit(2)


def not_built(what: str, issue: str) -> None:
    raise NotBuiltYet(f"'{what}' is not built yet ({issue})", "see the README for what works today")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tableref")
def main() -> None:
    """tableref: a computer-vision referee for flicking and board games.

    A camera above the table watches the game; tableref calibrates the boards once, finds every
    piece after each shot, judges by geometry whether it went outbound or arrived in a zone, and
    scores it by the game's rules.
    """


# ------------------------------------------------------------------------------------ simulate

@main.group(cls=_Group)
def simulate() -> None:
    """Render realistic photos of simulated tables with exact ground truth."""


@simulate.command("scene")
@click.option("--game", type=click.Choice(GAMES), required=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--size", default="1920x1080", show_default=True, help="image size WxH in px")
@click.option("--empty", is_flag=True, help="no pieces: a calibration photo of the empty table")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), required=True,
              help="image to write (.jpg or .png); the ground truth goes beside it as .json")
def simulate_scene(game: str, seed: int, size: str, empty: bool, out: str) -> None:
    """Render one random scene of GAME and write the photo and its ground truth."""
    from simulator.api import render_to_files

    w, h = _parse_size(size)
    img, truth = render_to_files(game, seed, Path(out), (w, h), empty=empty)
    click.echo(f"wrote {img} and {truth}")


@simulate.command("fixtures")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="fixtures", show_default=True)
@click.option("--docs", "docs_dir", type=click.Path(file_okay=False), default="docs", show_default=True)
def simulate_fixtures(out_dir: str, docs_dir: str) -> None:
    """Regenerate the bundled fixtures (scenes per game with ground truth) and the contact sheet."""
    from simulator.fixtures import make_fixtures

    make_fixtures(Path(out_dir), Path(docs_dir))


@simulate.command("game")
@click.option("--game", type=click.Choice(["pitchfleet", "pitrush"]), required=True)
@click.option("--mode", type=click.Choice(["stage", "contest", "arena"]), default="stage", show_default=True)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option("--size", default="1920x1080", show_default=True)
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), required=True, help="recording folder to write")
def simulate_game(game, mode, seed, size, out) -> None:
    """Simulate a recorded game: photos of every settled shot, the inputs, the expected scores."""
    from rich.progress import track

    w, h = _parse_size(size)
    if game == "pitchfleet":
        from simulator.games import simulate_pitchfleet_stage

        simulate_pitchfleet_stage(Path(out), seed=seed, size=(w, h))
    else:
        from simulator.games import simulate_pitrush_match

        simulate_pitrush_match(Path(out), mode=mode, seed=seed, size=(w, h))
    _ = track
    click.echo(f"wrote {out}")


@simulate.command("profiles")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="folder for the profiles (default: the built-in profile folder)")
def simulate_profiles(out_dir: str | None) -> None:
    """Regenerate the built-in nominal profiles and their tile pictures."""
    from simulator.fixtures import make_profiles

    for p in make_profiles(Path(out_dir) if out_dir else None):
        click.echo(f"wrote {p}")


def _parse_size(size: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in size.lower().split("x"))
        if w < 64 or h < 64:
            raise ValueError
        return w, h
    except ValueError:
        raise InputError(f"--size '{size}' is not WxH in pixels", "e.g. --size 1920x1080") from None


# ------------------------------------------------------------------------------ other verbs

@main.group(cls=_Group)
def calibrate() -> None:
    """Calibrate the camera (intrinsics) and register the boards (calibration.json)."""


@calibrate.command("camera")
@click.argument("images", nargs=-1, type=click.Path())
@click.option("--chessboard", "chessboard", metavar="COLSxROWS", default=None,
              help="chessboard target: inner corners, e.g. 9x6")
@click.option("--charuco", "charuco", metavar="XxY", default=None, help="ChArUco target: squares, e.g. 5x7")
@click.option("--square-mm", type=float, default=None, help="side of one square, mm")
@click.option("--marker-mm", type=float, default=None, help="ChArUco only: side of one marker, mm")
@click.option("--dict", "dictionary", default="DICT_6X6_250", show_default=True,
              help="ChArUco only: predefined ArUco dictionary")
@click.option("--fix-aspect", is_flag=True, help="square pixels: fx = fy (CALIB_FIX_ASPECT_RATIO)")
@click.option("--no-tangential", is_flag=True, help="no tangential distortion: p1 = p2 = 0")
@click.option("--k3/--no-k3", "k3", default=None,
              help="estimate the k3 radial term (default: only when at least 10 views are used)")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), required=True, help="camera.json to write")
def calibrate_camera(images, chessboard, charuco, square_mm, marker_mm, dictionary, fix_aspect, no_tangential, k3,
                     out) -> None:
    """Camera intrinsics from IMAGES, photos of a chessboard or ChArUco board.

    Finds the board in every photo, calibrates, names and drops views whose reprojection error is
    far above the others (RMS > max(3 x median, median + 1 px)) and calibrates again, then prints
    the RMS error per view and overall and writes camera.json.  Nothing is written when fewer than
    3 views are usable.

    \b
    tableref calibrate camera --chessboard 9x6 --square-mm 25 left*.jpg -o camera.json
    tableref calibrate camera --charuco 5x7 --square-mm 40 --marker-mm 20 --dict DICT_6X6_250 img*.jpg -o camera.json
    """
    from rich.console import Console

    from calibration.intrinsics import NotEnoughViews, Target, calibrate_camera_files, result_renderables, views_table

    if (chessboard is None) == (charuco is None):
        raise InputError("give exactly one target: --chessboard COLSxROWS or --charuco XxY",
                         "e.g. --chessboard 9x6 --square-mm 25")
    if square_mm is None:
        raise InputError("--square-mm is required (side of one square, mm)", "e.g. --square-mm 25")
    if chessboard is not None:
        if marker_mm is not None:
            raise InputError("--marker-mm is for ChArUco boards only", "drop it, or use --charuco")
        target = Target.chessboard(chessboard, square_mm)
    else:
        if marker_mm is None:
            raise InputError("--marker-mm is required with --charuco (side of one marker, mm)", "e.g. --marker-mm 20")
        target = Target.charuco(charuco, square_mm, marker_mm, dictionary)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    try:
        result = calibrate_camera_files([Path(p) for p in images], target, Path(out), fix_aspect=fix_aspect,
                                        tangential=not no_tangential, k3=k3)
    except NotEnoughViews as e:
        if e.views:
            console.print(views_table(e.views, title="Views (not calibrated)"))
        raise
    for r in result_renderables(result):
        console.print(r)
    click.echo(f"wrote {out}")


@calibrate.command("board")
@click.argument("image", type=click.Path())
@click.option("--profile", "profile_arg", required=True,
              help="a profile file, or the name of a built-in one (pitchfleet, pitrush, galaktico, asfccg)")
@click.option("--camera", "camera_path", type=click.Path(), default=None,
              help="camera.json from 'tableref calibrate camera' (otherwise the lens is estimated from the boards)")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), required=True, help="calibration.json to write")
@click.option("--overlay", type=click.Path(dir_okay=False), default=None, help="PNG/JPEG showing what was found")
def calibrate_board(image, profile_arg, camera_path, out, overlay) -> None:
    """Register the boards of a profile in IMAGE, a photo of the empty table.

    Finds every tile, tells which it is and how it is turned, estimates the camera and writes the
    calibration with its quality figures.  Nothing is written when the boards are not all found
    or the quality is out of bounds (the overlay, if asked for, shows what was seen).
    """
    from calibration.api import calibrate_board_files

    report = calibrate_board_files(Path(image), profile_arg, Path(camera_path) if camera_path else None, Path(out),
                                   Path(overlay) if overlay else None)
    click.echo(report)


@calibrate.command("pieces")
@click.argument("photos", nargs=-1, type=click.Path())
@click.option("--calibration", "calibration", type=click.Path(), required=True,
              help="calibration.json from 'tableref calibrate board'")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None,
              help="calibration to write, beside the other (default: update it)")
@click.option("--overlay", type=click.Path(dir_okay=False), default=None,
              help="the first photo, its pieces named with the learned colours")
def calibrate_pieces(photos, calibration, out, overlay) -> None:
    """Learn the pieces' colours from PHOTOS of the calibrated table ("show the pieces").

    Lay out at least one piece of every colour on the boards, apart, under the light you will play
    in, and photograph the table with the camera you calibrated.  The pieces are found, their
    colours clustered and named, and the calibration keeps what this set looks like on this table
    (a navy "blue", an ivory "white"): the referee then names pieces by those, not by textbook
    colours.
    """
    from vision.api import learn_colours_files

    for line in learn_colours_files([Path(p) for p in photos], Path(calibration), Path(out) if out else None,
                                    Path(overlay) if overlay else None):
        click.echo(line)


@main.group(cls=_Group)
def profile() -> None:
    """Board profiles: show, validate, learn a new board."""


@profile.command("learn")
@click.argument("images", nargs=-1, type=click.Path())
@click.option("--game", type=click.Choice(["pitchfleet", "pitrush", "galaktico", "asfccg"]), required=True,
              help="which game's boards (decides the board's shape and what to look for)")
@click.option("--size-mm", "size_mm", metavar="WxH", required=True,
              help="width and height of the tile (its bounding rectangle), mm, e.g. 200x200")
@click.option("--thickness-mm", "thickness_mm", type=float, default=None,
              help="board thickness, mm (default: the game's nominal board)")
@click.option("--ids", "ids", metavar="ID,ID,...", default=None,
              help="tile ids, one per photo in order (default: each photo's file name without extension)")
@click.option("--px-per-mm", "px_per_mm", type=float, default=4.0, show_default=True,
              help="scale of the top-down tile pictures written beside the draft")
@click.option("--camera", "camera_path", type=click.Path(), default=None,
              help="camera.json from 'tableref calibrate camera': lens distortion is removed first")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), required=True,
              help="draft profile to write (.json); the tile pictures <id>.jpg go beside it")
def profile_learn(images, game, size_mm, thickness_mm, ids, px_per_mm, camera_path, out) -> None:
    """Draft a profile from IMAGES, one photo per tile.

    Each photo shows one tile lying on a table, taken roughly from above, the table visible all
    round it.  The tile is found and rectified to a top-down picture (written beside the draft as
    <id>.jpg), then its features are measured in tile millimetres: the dotted-line zones of Pitch
    Fleet boards (with guessed kinds: planet, satellite with its stars, charging satellite,
    asteroid belt), the pits and shooting lines of the PitRush board, the grid of a Galaktico
    sector.  Every guess is marked for a person to confirm or edit.  Nothing is written when a
    photo is refused.

    \b
    tableref profile learn --game pitchfleet --size-mm 200x200 photos/*.jpg -o mine/pitchfleet.json
    tableref profile learn --game pitrush --size-mm 600x519.6 board.jpg -o mine/pitrush.json
    """
    from rich.console import Console

    from calibration.learn import learn_files, parse_size_mm

    if not images:
        raise InputError("no photos given", "give one photo per tile, e.g. tableref profile learn --game pitchfleet "
                         "--size-mm 200x200 mercury.jpg -o draft.json")
    size = parse_size_mm(size_mm)
    id_list = None if ids is None else [s.strip() for s in ids.split(",")]
    learned = learn_files([Path(p) for p in images], Path(out), game, size, ids=id_list, thickness_mm=thickness_mm,
                          px_per_mm=px_per_mm, camera=Path(camera_path) if camera_path else None)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    for lt in learned:
        console.print(f"[bold]{lt.tile.id}[/bold] ({lt.photo})", markup=True)
        for line in lt.summary:
            console.print(f"  {line}", markup=False)
    click.echo(f"wrote {out} and {len(learned)} tile picture(s) beside it: a DRAFT - check every guess "
               "(zones with attributes.guessed) against the pictures before use")


@main.command()
@click.argument("image", type=click.Path())
@click.option("--calibration", "calibration", type=click.Path(), required=True,
              help="calibration.json from 'tableref calibrate board'")
@click.option("--json", "as_json", is_flag=True, help="print the pieces as JSON")
@click.option("--overlay", type=click.Path(dir_okay=False), default=None, help="draw the verdicts on the photo")
def detect(image, calibration, as_json, overlay) -> None:
    """Find the pieces in IMAGE and judge them against a calibration.

    Every piece: kind, colour, centre (image px and table mm), footprint (mm), outbound, zones
    touched, pit and state, margin to the nearest decision boundary (mm), confidence, and whether a
    person should confirm it.
    """
    import json as _json

    from tableref.files import read_image, write_image
    from vision.api import detect_file, load_detector

    det = load_detector(calibration)
    _compiled()
    res = detect_file(image, det)
    j = res.judgement
    if overlay:
        from vision.overlay import draw_judgement

        write_image(overlay, draw_judgement(read_image(image), j, det.cal))
    if as_json:
        doc = j.to_json()
        doc["hand"] = res.hand
        click.echo(_json.dumps(doc, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{len(j)} piece(s) in {image}" + (" (a hand is over the table)" if res.hand else ""))
    for col in ("piece", "centre mm", "verdict", "where", "margin", "conf"):
        t.add_column(col)
    for i in range(len(j)):
        r = j.row(i)
        verdict = "OUTBOUND" if r["outbound"] else r["state"]
        where = ", ".join(r["zones"]) or (r["pit"] or "") or (r["space"] or "")
        flag = " REVIEW" if r["review"] else ""
        t.add_row(f"{r['kind']} {r['color']}", f"{r['center_mm'][0]:.1f}, {r['center_mm'][1]:.1f}", verdict + flag, where,
                  f"{r['margin_mm']:.1f} mm", f"{r['confidence']:.2f}")
    Console().print(t)
    if overlay:
        click.echo(f"overlay: {overlay}")


@main.command()
@click.argument("folder", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="print the events and scores as JSON")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="folder for the overlays of every judged frame (default: out/replay-<name>)")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="record the match (events and scores) in this match log (SQLite; created if missing)")
def replay(folder, as_json, out_dir, log_path) -> None:
    """Replay a recorded game from FOLDER: the events of every turn and the final scores.

    FOLDER holds manifest.json (players, set-up, the inputs of every turn), a photo of the empty
    table (or a calibration) and one settled frame after every shot.
    """
    import json as _json

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from .replay import replay as run_replay

    out = Path(out_dir) if out_dir else Path("out") / f"replay-{Path(folder).resolve().name}"
    err = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} frames"),
                  TimeRemainingColumn(), console=err, transient=True, disable=as_json) as bar:
        task = bar.add_task("replaying", total=None)

        compiling = [0.0]

        def on_frame(done, total):
            bar.update(task, completed=done, total=total)
            if done == 0:  # the recording and its calibration are read: the frames are next
                compiling[0] = _compiled(lambda news: bar.update(task, description=news or "replaying"))

        if log_path:
            from .log import MatchLog

            with MatchLog(log_path) as log:
                res = run_replay(folder, out, on_frame, log=log)
                logged = f"logged as match {log.last_started} in {log_path}"
        else:
            res = run_replay(folder, out, on_frame)
    if as_json:
        click.echo(_json.dumps(res.to_json(), indent=1))
        if log_path:
            click.echo(logged, err=True)
        return
    con = Console(highlight=False)
    con.print(f"[bold]{res.title or res.game}[/bold]")
    for e in res.events:
        if e.kind == "turn":
            con.print(f"[bold cyan]{e.text}[/bold cyan]")
        elif e.kind == "review":
            con.print(f"  [yellow]REVIEW[/yellow] {e.text}")
        else:
            con.print(f"  {e.text}")
    t = Table(title="Scoreboard")
    t.add_column("player")
    t.add_column("score", justify="right")
    for name, score in zip(res.players, res.scores):
        t.add_row(name + (" (winner)" if name in res.winners and len(res.winners) == 1 else ""), str(score))
    con.print(t)
    once = f" ({compiling[0]:.0f} s of it compiling the pose fit, once)" if compiling[0] >= 1.0 else ""
    con.print(f"{res.frames} frames judged in {res.seconds:.1f} s{once}; {res.reviews} verdict(s) to confirm; "
              f"overlays in {out}")
    if log_path:
        click.echo(logged)
    if res.expected.get("scores") is not None:
        ok = list(res.expected["scores"]) == res.scores
        con.print(("[green]" if ok else "[red]") + f"expected scores {res.expected['scores']}: "
                  + ("match" if ok else "DIFFER") + ("[/green]" if ok else "[/red]"))


@main.command()
@click.option("--camera", default="sim:pitchfleet:3", show_default=True,
              help="usb:0, pi, video:FILE, folder:DIR, or sim:GAME[:SEED] (the simulator: no hardware needed)")
@click.option("--calibration", type=click.Path(), default=None,
              help="calibration.json for this camera (with sim: made from the simulator's empty table)")
@click.option("--shots", type=int, default=None, help="stop after this many settled shots")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="out/live", show_default=True,
              help="overlays of every settled scene (and the simulator's calibration)")
@click.option("--serve", "serve_port", type=int, default=None, metavar="PORT",
              help="also show the live view in a browser at http://127.0.0.1:PORT/live")
def live(camera, calibration, shots, out_dir, serve_port) -> None:
    """Watch the table: judge every shot once it has settled, track the pieces, report what changed.

    Frames are checked for motion; when nothing has moved for a moment and no hand is over the
    table, the frame is judged: every piece's verdict, which piece was shot, which were knocked,
    which vanished under another; the boards are checked for drift now and then.
    """
    from rich.console import Console

    from .live import run_live

    con = Console(highlight=False)
    state = None
    if serve_port is not None:
        import threading

        import uvicorn

        from .web.app import create_app
        from .web.live import LiveState

        state = LiveState()
        app = create_app(Path(calibration) if calibration else None, None, live=state)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=serve_port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        con.print(f"live view: http://127.0.0.1:{serve_port}/live")

    def show(scene):
        if state is not None:
            from vision.overlay import draw_judgement

            state.update(draw_judgement(scene.image, scene.judgement, summary_cal[0]), scene.judgement.to_json(),
                         scene.sentences, [])
        con.print(f"[bold]settled at {scene.t:.1f} s (frame {scene.index}): {scene.pieces} piece(s)"
                  + (f", {scene.review} to confirm" if scene.review else "") + "[/bold]")
        for line in scene.sentences:
            con.print(f"  {line}")
        for line in scene.verdicts:
            con.print(f"    {line}")

    out = Path(out_dir)
    summary_cal: list = []
    def calibrated(cal):
        summary_cal.append(cal)
        _compiled()  # before the first frame is judged, so that it is not held up for it

    summary = run_live(camera, calibration, out, shots, on_scene=show, on_calibrated=calibrated)
    con.print(f"{summary.frames} frames watched, {len(summary.settled)} settled scene(s) judged; overlays in {out}")


@main.command()
@click.option("--calibration", "calibration", type=click.Path(), default=None,
              help="calibration.json to show and edit (from 'tableref calibrate board')")
@click.option("--log", "log_path", type=click.Path(), default=None,
              help="match log to browse (SQLite, as written by 'tableref replay --log'; created if missing)")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default="8765", show_default=True, help="port to listen on")
def serve(calibration, log_path, host, port) -> None:
    """Web UI: calibration editor, match log, live view.

    \b
    tableref serve --calibration calibration.json --log matches.sqlite
    then open http://127.0.0.1:8765/ : /calibration (drag tile corners, relabel zones, save),
    /matches (every logged match, its events and scoreboard), /live (the game being refereed).
    """
    import socket

    try:
        port_n = int(port)
        if not 1 <= port_n <= 65535:
            raise ValueError
    except ValueError:
        raise InputError(f"--port '{port}' is not a port number", "give 1-65535, e.g. --port 8765") from None
    if calibration is not None and not Path(calibration).exists():
        raise InputError(f"{calibration}: no such calibration", "check the path, or make one with "
                         "'tableref calibrate board'")
    try:
        import uvicorn

        from .web.app import create_app
    except ImportError as e:
        raise InputError(f"the web UI needs FastAPI and uvicorn ({e})", "pip install 'tableref[web]'") from None
    try:  # refuse an address we cannot listen on now, in one line, before uvicorn starts
        infos = socket.getaddrinfo(host, port_n, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(infos[0][4])
    except OSError as e:
        raise InputError(f"cannot listen on {host}:{port_n} ({e.strerror or e})",
                         "choose another --port or --host") from None
    app = create_app(Path(calibration) if calibration else None, Path(log_path) if log_path else None)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"tableref serve: http://{shown}:{port_n}/ (calibration editor /calibration, match log /matches, "
               f"live view /live); Ctrl-C stops")
    uvicorn.run(app, host=host, port=port_n, log_level="warning")


@main.group(cls=_Group)
def bench() -> None:
    """Benchmarks on simulated scenes: calibration accuracy, verdict accuracy, speed.

    Rendered scenes are cached (~/.cache/tableref/bench, or $TABLEREF_CACHE), so later runs
    only measure.
    """


def _games_opt(games: str) -> tuple[str, ...]:
    out = tuple(g.strip() for g in games.split(",") if g.strip())
    bad = [g for g in out if g not in GAMES]
    if bad:
        raise InputError(f"unknown game(s) {bad}", f"choose from {', '.join(GAMES)}")
    return out


@bench.command("calibration")
@click.option("--scenes", type=int, default=20, show_default=True, help="simulated photos per game")
@click.option("--games", default=",".join(GAMES), show_default=True)
@click.option("--size", default="4056x3040", show_default=True, help="photo size (12 MP by default)")
@click.option("--workers", type=int, default=2, show_default=True)
def bench_calibration(scenes, games, size, workers) -> None:
    """Board registration accuracy and time (one core per photo)."""
    import numpy as np
    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    from .bench import bench_calibration as run

    con = Console()
    todo = [None] * (scenes * len(_games_opt(games)))
    it = iter(track(todo, description="registering", console=Console(stderr=True)))
    rows = run(scenes, _games_opt(games), _parse_size(size), workers, on_row=lambda r: next(it, None))
    t = Table(title=f"tableref bench calibration ({size}, {scenes} photos per game)")
    for c in ("game", "found", "refused", "id+turn right", "corner median mm", "corner worst mm", "zone IoU mean",
              "zone IoU min", "pit worst mm", "s median", "s worst"):
        t.add_column(c, justify="right")
    for g in _games_opt(games):
        rs = [r for r in rows if r.game == g]
        ok = [r for r in rs if r.ok]
        corners = np.concatenate([r.corners for r in ok]) if ok else np.array([np.nan])
        ious = np.concatenate([r.ious for r in ok]) if ok and any(r.ious for r in ok) else np.array([np.nan])
        pits = np.concatenate([r.pits for r in ok]) if ok and any(r.pits for r in ok) else np.array([np.nan])
        secs = np.array([r.seconds for r in rs])
        t.add_row(g, f"{len(ok)}/{len(rs)}", str(sum(bool(r.problems) for r in ok)),
                  f"{sum(r.identity and r.rotation for r in ok)}/{len(rs)}",
                  f"{np.median(corners):.2f}", f"{np.max(corners):.2f}", f"{np.mean(ious):.4f}", f"{np.min(ious):.4f}",
                  f"{np.max(pits):.2f}", f"{np.median(secs):.2f}", f"{np.max(secs):.2f}")
    con.print(t)
    con.print("targets: identity and turn 100%; corners <= 1.0 mm median, <= 2 mm worst; zone IoU >= 0.98; "
              "pit centre <= 0.5 mm; <= 2 s for a 12 MP photo on one core")
    con.print("found: registered; refused: of those, calibrations whose own quality figures are out of bounds "
              "(the referee would not use them; their errors are still in the figures)")
    for r in rows:
        if not r.ok:
            con.print(f"[red]{r.game} seed {r.seed}: {r.error}[/red]")
        elif r.problems:
            con.print(f"[yellow]{r.game} seed {r.seed} refused: {'; '.join(r.problems)}[/yellow]")


@bench.command("accuracy")
@click.option("--scenes", type=int, default=300, show_default=True, help="simulated scenes per game")
@click.option("--games", default=",".join(GAMES), show_default=True)
@click.option("--size", default="1920x1080", show_default=True)
@click.option("--workers", type=int, default=2, show_default=True)
@click.option("--first-seed", type=int, default=7000, show_default=True,
              help="the first table's seed: the tables are this and the ones after it (another range measures "
                   "tables not looked at while the referee was built)")
@click.option("--true-calibration", is_flag=True, help="judge against the exact calibration (isolates vision)")
@click.option("--learn-colours", is_flag=True,
              help="name colours as learned from a photo of another layout of each table (as 'tableref calibrate "
                   "pieces' does; renders that photo too)")
@click.option("--in-play", is_flag=True,
              help="judge each scene in which pieces rest on others as the live referee does: after photos of "
                   "the table before each of those pieces came, through the tracker (renders those photos too)")
@click.option("--jitter", type=click.IntRange(0, 20), default=0, show_default=True,
              help="read each photo this many times more with imperceptible noise added (a third of the pixel "
                   "values one grey level off) and count the pieces whose reading changes: toss-ups, not "
                   "judgements (single photos: not with --in-play)")
def bench_accuracy(scenes, games, size, workers, first_seed, true_calibration, learn_colours, in_play,
                   jitter) -> None:
    """Verdict accuracy, centre error, missed and false pieces over simulated scenes."""
    from collections import Counter

    import numpy as np
    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    from .bench import bench_accuracy as run

    con = Console()
    gs = _games_opt(games)
    _compiled()  # here, not in each worker
    todo = [None] * (scenes * len(gs))
    it = iter(track(todo, description="judging", console=Console(stderr=True)))
    rows = run(scenes, gs, _parse_size(size), workers, true_calibration, on_row=lambda r: next(it, None),
               learn_colours=learn_colours, in_play=in_play, first_seed=first_seed, jitter=jitter)
    summary = Table(title=f"tableref bench accuracy ({size}, {scenes} scenes per game"
                          + (f" from seed {first_seed}" if first_seed != 7000 else "")
                          + (", exact calibration" if true_calibration else ", calibrated from the empty photo")
                          + (", colours learned from another layout" if learn_colours else "")
                          + (", in play: tracked over the shots that laid pieces on others" if in_play
                             else "")
                          + (f", each photo read {jitter} times more under imperceptible noise" if jitter else "")
                          + ")")
    for c in ("game", "pieces", "missed (hidden under others, out of the photo)", "false/scene", "centre median mm",
              "centre p99 mm", "verdicts right (margin >= 1.5 mm)", "all verdicts right", "review", "ms median",
              *(["read otherwise under noise (of them >= 1.5 mm clear; not flagged for review)"] if jitter else [])):
        summary.add_column(c, justify="right")
    for g in gs:
        rs = [r for r in rows if r.game == g]
        cen = np.concatenate([r.center for r in rs if r.center]) if any(r.center for r in rs) else np.array([np.nan])
        right = total = right_all = total_all = 0
        for r in rs:
            for v, lst in r.verdicts.items():
                if v in ("kind", "color"):
                    continue
                for truth, got, margin in lst:
                    total_all += 1
                    right_all += truth == got
                    if margin >= 1.5:
                        total += 1
                        right += truth == got
        summary.add_row(g, str(sum(r.n_true for r in rs)),
                        f"{sum(r.missed for r in rs)} ({sum(r.hidden for r in rs)}, {sum(r.unseen for r in rs)})",
                        f"{sum(r.false for r in rs) / max(len(rs), 1):.3f}", f"{np.median(cen):.2f}",
                        f"{np.percentile(cen, 99):.2f}", f"{100 * right / max(total, 1):.2f}% ({right}/{total})",
                        f"{100 * right_all / max(total_all, 1):.2f}%",
                        f"{sum(r.review for r in rs)}",
                        f"{np.median([r.ms for r in rs if r.ms]) if any(r.ms for r in rs) else float('nan'):.0f}",
                        *([(f"{sum(r.unsteady for r in rs)} ({sum(r.unsteady_clear for r in rs)}; "
                            f"{sum(r.unsteady_silent for r in rs)})")] if jitter else []))
    con.print(summary)
    con.print("targets: >= 99.5% verdicts right for pieces >= 1.5 mm from a boundary; centre <= 0.7 mm median, "
              "<= 2 mm p99; no missed pieces; <= 0.05 false pieces per scene")
    for g in gs:
        rs = [r for r in rows if r.game == g]
        for v in ("outbound", "zones", "state", "pit", "space", "kind", "color"):
            pairs = Counter((a, b) for r in rs for a, b, m in r.verdicts.get(v, []) if m >= 1.5)
            if not pairs:
                continue
            labels = sorted({a for a, _ in pairs} | {b for _, b in pairs})
            if len(labels) > 12:  # zones/spaces: right vs wrong only
                right = sum(n for (a, b), n in pairs.items() if a == b)
                wrong = sum(n for (a, b), n in pairs.items() if a != b)
                con.print(f"{g} {v}: {right} right, {wrong} wrong")
                continue
            t = Table(title=f"{g}: {v} (rows truth, columns detected; margin >= 1.5 mm)")
            t.add_column("")
            for b in labels:
                t.add_column(b, justify="right")
            for a in labels:
                t.add_row(a, *[str(pairs.get((a, b), 0) or "") for b in labels])
            con.print(t)
    for r in rows:
        if r.error:
            con.print(f"[red]{r.game} seed {r.seed}: {r.error}[/red]")


@bench.command("speed")
@click.option("--frames", type=int, default=20, show_default=True, help="times each table is read")
@click.option("--scenes", type=click.IntRange(min=1), default=1, show_default=True,
              help="tables per game (the first rendered once and cached)")
def bench_speed(frames, scenes) -> None:
    """Detection + judgement of a settled 1920x1080 frame (one core), from scratch and after a shot
    (judged with the frame before it), and the settle check rate."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from .bench import bench_speed as run

    _compiled()
    con = Console()
    # (drawn between tables only: a bar refreshing itself from its own thread would take time
    # from the one core the frames are timed on)
    with Progress(console=con, transient=True, auto_refresh=False) as bar:
        task = bar.add_task("timing", total=len(GAMES) * scenes)

        def progress(game, k):
            bar.update(task, completed=GAMES.index(game) * scenes + k, description=f"{game} table {k + 1}/{scenes}")
            bar.refresh()
        res = run(frames, scenes=scenes, progress=progress)
    t = Table(title=f"tableref bench speed (one core; {scenes} table{'s' if scenes > 1 else ''} per game, "
                    f"{frames} frames each)")
    t.add_column("game")
    t.add_column("pieces", justify="right")
    t.add_column("ms median", justify="right")
    t.add_column("ms worst", justify="right")
    t.add_column("after a shot: ms median", justify="right")
    t.add_column("after a shot: ms worst", justify="right")
    t.add_column("regions posed again", justify="right")
    for g in GAMES:
        r = res[g]
        t.add_row(g, str(r.pieces), f"{r.ms_median:.0f}", f"{r.ms_worst:.0f}", f"{r.after_shot_ms:.0f}",
                  f"{r.after_shot_worst:.0f}", f"{r.regions_posed} of {r.regions}")
    con.print(t)
    fps = res.get("motion_fps")
    con.print(f"settle check at 640x480: {fps:.0f} frames/s" if fps else "settle check: not available")
    con.print(f"peak RSS {res['rss_mb']:.0f} MB; targets: <= 30 ms per 1920x1080 frame, >= 300 frames/s settle check")


if __name__ == "__main__":  # pragma: no cover
    main()
