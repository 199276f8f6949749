"""fem.linalg.spmm: the two-thread sparse × dense product gives scipy's ``a @ x`` bit for bit."""
import numpy as np
import pytest
import scipy.sparse as sp

from fem import linalg


@pytest.fixture
def always_split(monkeypatch):
    monkeypatch.setattr(linalg, "SPLIT_WORK", 0)
    monkeypatch.setattr(linalg, "_product_threads", lambda: 2)


def _matrix(n=2001, density=0.004, seed=1):
    a = sp.random(n, n, density=density, format="csr", random_state=seed)
    a = (a + a.T + sp.identity(n)).tocsr()
    # rows of very different lengths: a dense last row
    dense_row = sp.csr_matrix((np.ones(n), (np.full(n, n - 1), np.arange(n))), shape=(n, n))
    return (a + dense_row).tocsr()


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("columns", [1, 7, 24])
def test_split_product_is_scipys(always_split, order, columns):
    a = _matrix()
    x = np.asarray(np.random.default_rng(2).standard_normal((a.shape[0], columns)), order=order)
    out = linalg.spmm(a, x)
    assert out.shape == (a.shape[0], columns)
    assert np.array_equal(out, a @ x)  # the same kernel per row: no tolerance


def test_other_inputs_are_plain_products(always_split):
    a = _matrix(301)
    v = np.arange(301.0)
    assert np.array_equal(linalg.spmm(a, v), a @ v)  # 1-D
    assert np.array_equal(linalg.spmm(a.tocsc(), v[:, None]), a.tocsc() @ v[:, None])  # CSC
    a32 = a.astype(np.float32)
    x = np.ones((301, 3))
    assert np.array_equal(linalg.spmm(a32, x), a32 @ x)
    empty = sp.csr_matrix((301, 301))
    assert np.array_equal(linalg.spmm(empty, x), np.zeros((301, 3)))


def test_split_product_in_a_forked_child(always_split):
    """A child forked after a split product (multiprocessing's default on Linux) makes its own worker thread."""
    import multiprocessing

    a = _matrix(501)
    x = np.ones((501, 4))
    linalg.spmm(a, x)  # the parent's worker thread exists now
    with multiprocessing.get_context("fork").Pool(1) as pool:
        out = pool.apply_async(linalg.spmm, (a, x)).get(timeout=60)
    assert np.array_equal(out, a @ x)
