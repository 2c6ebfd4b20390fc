from pathlib import Path

from shared_types.lifecycle import INITIAL, LIFECYCLE, Sweep, markdown_table, may_move, swept
from shared_types.models import IN_PROGRESS_STATUSES, JobStatus

ARCHITECTURE = Path(__file__).resolve().parents[4] / "docs" / "ARCHITECTURE.md"
BEGIN = "<!-- lifecycle table: python -m shared_types.lifecycle -->\n"
END = "<!-- end of the lifecycle table -->"


def test_every_status_has_a_row():
    assert set(LIFECYCLE) == set(JobStatus)


def test_a_status_nothing_sweeps_cannot_exist_unless_it_is_terminal():
    for status, stage in LIFECYCLE.items():
        assert (stage.sweep is Sweep.NONE) == status.is_final, status


def test_the_janitor_sweeps_every_in_progress_status_and_no_other():
    assert [status for status, _ in swept()] == list(IN_PROGRESS_STATUSES)


def test_every_sweep_is_used_once():
    kinds = [kind for _, kind in swept()]
    assert sorted(kinds) == sorted(set(Sweep) - {Sweep.NONE})


def test_every_status_but_completed_and_cancelled_can_still_move():
    stuck = {s for s, stage in LIFECYCLE.items() if not stage.next}
    assert stuck == {JobStatus.COMPLETED, JobStatus.CANCELLED}


def test_every_job_that_has_not_ended_can_be_failed_or_cancelled():
    for status in IN_PROGRESS_STATUSES:
        assert may_move(status, JobStatus.FAILED) and may_move(status, JobStatus.CANCELLED)


def test_every_status_can_be_reached_from_an_initial_one():
    reached, frontier = set(INITIAL), list(INITIAL)
    while frontier:
        for target in LIFECYCLE[frontier.pop()].next:
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    assert reached == set(JobStatus)


def test_negative_control_a_move_the_table_does_not_list_is_refused():
    assert not may_move(JobStatus.COMPLETED, JobStatus.CREATED)
    assert not may_move(JobStatus.CREATED, JobStatus.COMPLETED)


def test_the_architecture_page_shows_the_table_in_code():
    text = ARCHITECTURE.read_text()
    assert BEGIN in text and END in text, "the lifecycle table's markers are missing"
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert shown == markdown_table(), (
        "docs/ARCHITECTURE.md's lifecycle table differs from shared_types.lifecycle: "
        "paste `python -m shared_types.lifecycle` between its markers")


def test_negative_control_the_table_names_every_status_and_its_moves():
    table = markdown_table()
    for status, stage in LIFECYCLE.items():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{status}` |"))
        for target in stage.next:
            assert f"`{target}`" in row.rsplit("|", 2)[1]
