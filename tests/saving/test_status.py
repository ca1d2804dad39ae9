"""The restore status: its report and assertions."""

import pytest

import eagerflow as ef
from tests.saving import fakes


def test_report_lists_matched_unused_missing(tmp_path):
    path = ef.Checkpoint(a=ef.Variable(1.0), b=[ef.Variable(2.0)]).write(tmp_path / "r.h5")
    status = ef.Checkpoint(a=ef.Variable(0.0), c=ef.Variable(0.0)).read(path)
    assert status.matched == ["a"]
    assert status.unused == ["b/0"]
    assert status.missing == ["c"]
    assert status.pending == [] and status.mismatched == []
    assert str(status) == ("CheckpointLoadStatus('r.h5'): 1 matched, 0 pending, 1 unused, "
                           "1 missing, 0 mismatched")
    assert repr(status) == str(status)
    assert status.report().splitlines()[1:] == [
        "  matched (1): a", "  unused (1): b/0", "  missing (1): c"]
    with pytest.raises(AssertionError, match=r"1 existing variable\(s\) found no value in the "
                       r"file: 'c'; 1 saved value nothing can use: 'b/0'.*expect_partial"):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="did not match the existing objects: 1 existing"):
        status.assert_existing_objects_matched()
    assert status.expect_partial() is status


def test_missing_is_live(tmp_path):
    holder = fakes.Sequential([])
    holder.w = ef.Variable(1.0)
    path = ef.Checkpoint(model=holder).write(tmp_path / "m.h5")
    status = ef.Checkpoint(model=holder).read(path)
    assert status.assert_consumed() is status
    holder.added_later = ef.Variable(2.0)
    assert status.missing == ["model/added_later"]
