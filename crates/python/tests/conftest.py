"""Prints how many vector cases each section checked."""

from _vectors import COUNTS


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    terminalreporter.section("Go vectors checked")
    for section, n in sorted(COUNTS.items()):
        terminalreporter.write_line(f"{section}: {n}")
    terminalreporter.write_line(f"total: {sum(COUNTS.values())}")
