"""``models list|download NAME|remove NAME``: one implementation for every CLI
(``stereo-spot models`` and ``stereo-inference models``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shared_types.errors import ModelDownloadError, ModelUnavailableError

from stereo_models.depth_models import CATALOG, best_installed, installed_bytes, is_installed


def add_models_parser(sub) -> None:
    """Add the ``models`` command to an argparse sub-parsers object."""
    models = sub.add_parser("models", help="list, download and remove depth models")
    models_sub = models.add_subparsers(dest="models_command", required=True)
    models_sub.add_parser("list", help="every known model: installed?, size, licence")
    download = models_sub.add_parser("download", help="download a model (needs internet)")
    download.add_argument("name", choices=sorted(CATALOG))
    remove = models_sub.add_parser("remove", help="delete an installed model")
    remove.add_argument("name", choices=sorted(CATALOG))


def run_models_command(args: argparse.Namespace, models_dir: Path, *,
                       endpoint: str | None = None, out=None) -> int:
    """Run a parsed ``models`` command; returns the exit status."""
    from stereo_models.model_install import download_model, remove_model

    out = out or sys.stdout
    if args.models_command == "list":
        default = best_installed(models_dir)
        print(f"models folder: {models_dir}", file=out)
        rows = sorted(CATALOG.values(), key=lambda c: (not is_installed(c.name, models_dir),
                                                       -c.quality))
        for card in rows:
            installed = is_installed(card.name, models_dir)
            size = installed_bytes(card.name, models_dir) / 1e6 if installed else card.size_mb
            mark = " (default)" if card.name == default else ""
            state = "installed" if installed else "available"
            print(f"{card.name:26} {state:10} {size:8.0f} MB  {card.licence}{mark}", file=out)
        mark = " (default)" if default == "heuristic" else ""
        print(f"{'heuristic':26} {'built in':10} {0:8.0f} MB  -{mark}", file=out)
        return 0
    if args.models_command == "remove":
        if remove_model(args.name, models_dir):
            print(f"removed {args.name}", file=out)
            return 0
        print(f"{args.name} is not installed in {models_dir}", file=sys.stderr)
        return 1
    try:
        folder = download_model(args.name, models_dir, endpoint=endpoint)
    except (ModelDownloadError, ModelUnavailableError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"installed {args.name} in {folder}", file=out)
    return 0
