"""Fixtures of the engine tests."""

import distributed
import pytest


@pytest.fixture(scope="module")
def client():
    """A 2-worker ``distributed.LocalCluster`` (one thread, one process each) and its
    client, for the tests of a module that fit on a cluster."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
