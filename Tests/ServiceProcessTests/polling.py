"""Waiting in the browser tests: a check polled until it holds, for the scripts driving Chromium and Firefox."""
import time


def wait_until(check, seconds=15):
    """Polls `check` until it returns something true or `seconds` pass; returns its last answer."""
    deadline = time.monotonic() + seconds
    answer = check()
    while not answer and time.monotonic() < deadline:
        time.sleep(0.1)
        answer = check()
    return answer
