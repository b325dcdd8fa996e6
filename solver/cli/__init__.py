"""The ``meridians`` command: thin; it parses arguments and calls the library.

Every error the user can cause (a malformed position, an unknown board or point, an
illegal move, an absurd option value, an unreadable or malformed file) ends in one line
on stderr naming the option or the file, and exit code 2, never a traceback.  Output
options (``--svg``, ``--map``, ``--certificate``, ``--checkpoint``) create the missing
folders of their path.

The commands are in modules by family:

- :mod:`.game`: ``show``, ``play``, ``perft``, ``import``, ``analyse`` (positions and game records);
- :mod:`.engine`: ``move``, ``lookup``, ``match``, ``bench`` (the engine and the analyst);
- :mod:`.solving`: ``solve``, ``verify``, ``check`` (proofs and certificates);
- :mod:`.serve`: ``serve`` (the web application);
- :mod:`.common`: what they share (the group's class, errors, arguments, tables, records).

A command parses its options, calls the library and formats the answer.  To add one,
write it with ``@click.command`` in its family's module and add it to the tuple below
(``--help`` lists the commands in alphabetical order).  Plugin groups such as
``puzzles`` come from the entry-point group ``meridians.commands`` (see
:class:`.common._Group`).
"""

from __future__ import annotations

import sys

import click

from solver import RULES_VERSION, __version__
from solver.util.errors import Interrupted, MeridiansError

from . import common
from .common import _fail, _Group
from .engine import bench, lookup, match, move
from .game import analyse, import_record, perft, play, show
from .serve import serve
from .solving import check_certificate, solve, verify


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridians", message=f"%(prog)s %(version)s (rules {RULES_VERSION})")
def cli() -> None:
    """Meridians: rules engine, exact solver and puzzle generator.

    Bad input gives one line on stderr and exit code 2; see each command's --help.

    \b
    Examples:
      meridians show 6/7
      meridians solve 2/3
    """


for _command in (show, play, perft, import_record, analyse,  # .game
                 move, lookup, match, bench,                  # .engine
                 solve, verify, check_certificate,            # .solving
                 serve):                                      # .serve
    cli.add_command(_command)


def _os_message(e: OSError) -> str:
    """``PATH: reason`` for an OSError about a file (``[Errno 13] ...`` otherwise)."""
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the command group, turning every user error into one line."""
    import zlib

    common._ARGV = list(sys.argv[1:] if argv is None else argv)
    try:
        code = cli.main(args=argv, prog_name="meridians", standalone_mode=False)
    except click.UsageError as e:
        # command_path names a subcommand of a group too ('meridians puzzles show')
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx and e.ctx.parent else " (see 'meridians --help')"
        _fail(_one_line(e.format_message()) + hint)
    except click.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        _fail(_one_line(e.format_message()))
    except Interrupted as e:  # a long run stopped after saving what it finished
        click.echo(f"meridians: {_one_line(str(e))}", err=True)
        sys.exit(130)
    except OSError as e:
        _fail(_one_line(_os_message(e)))
    except MeridiansError as e:  # every error the user can cause, typed by its module
        _fail(_one_line(str(e)))
    except ValueError as e:  # a library's own ValueError that no reader typed: one line too
        _fail(_one_line(str(e)))
    # the last resort: each of these has its cause fixed where it is known (the readers
    # of solver.util.files, the checks of solver.search.limit); one line all the same
    except RecursionError:
        _fail("the input is nested too deeply")
    except MemoryError:
        _fail("out of memory: give a smaller --tt-mb or a smaller input")
    except zlib.error as e:
        _fail(f"corrupt compressed data ({e})")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _one_line(message: str) -> str:
    """A message on one line (a value the user typed may hold a newline)."""
    return " ".join(message.split("\n")) if "\n" in message else message


if __name__ == "__main__":  # pragma: no cover
    main()
