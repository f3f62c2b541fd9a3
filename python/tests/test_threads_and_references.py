"""Threads calling one session get their own inputs' outputs; runs neither leak memory nor keep
references to the caller's arrays; filters let go of their images."""
import gc
import sys
import threading

import numpy as np

import models
import volvox


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_threads_calling_one_session():
    session = volvox.InferenceSession(models.small_cnn())
    inputs = [np.random.default_rng(i).normal(size=(1 + i % 3, 3, 16, 16)).astype(np.float32) for i in range(8)]
    expected = [session.run(None, {"image": x})[0] for x in inputs]
    failures = []

    def worker(i):
        for _ in range(25):
            (got,) = session.run(None, {"image": inputs[i]})
            if not np.array_equal(got, expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_errors_stay_with_the_thread_that_made_them():
    """A thread feeding a wrong shape to a session gets the error; threads running it rightly, none."""
    good = volvox.InferenceSession(models.small_cnn())
    x = np.ones((1, 3, 16, 16), np.float32)
    (expected,) = good.run(None, {"image": x})
    errors = {"good": [], "bad": 0}

    def good_worker():
        for _ in range(40):
            try:
                if not np.array_equal(good.run(None, {"image": x})[0], expected):
                    errors["good"].append("wrong values")
            except volvox.Error as e:
                errors["good"].append(str(e))

    def bad_worker():
        for _ in range(40):
            try:
                good.run(None, {"image": np.ones((1, 3, 8, 8), np.float32)})
            except volvox.InvalidArgument:
                errors["bad"] += 1

    threads = [threading.Thread(target=good_worker) for _ in range(3)] + [threading.Thread(target=bad_worker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == {"good": [], "bad": 40}


def test_no_leak_over_a_thousand_runs():
    n = 16384  # 64 kB in, 64 kB out per run: 1,000 leaked outputs would be 64 MB
    session = volvox.InferenceSession(models.negate(n))
    x = np.arange(n, dtype=np.float32)
    for _ in range(50):  # warm up: plans, allocator pools
        session.run(None, {"x": x})
    gc.collect()
    refs_before, rss_before, objects_before = sys.getrefcount(x), resident_bytes(), len(gc.get_objects())
    for _ in range(1000):
        (y,) = session.run(None, {"x": x})
    assert np.array_equal(y, -x)
    del y
    gc.collect()
    assert sys.getrefcount(x) == refs_before  # the session keeps no reference to its inputs
    assert len(gc.get_objects()) - objects_before < 100
    assert resident_bytes() - rss_before < 8 << 20, "memory grew by more than 8 MB over 1,000 runs"


def test_outputs_own_their_memory():
    session = volvox.InferenceSession(models.negate(4))
    (a,) = session.run(None, {"x": np.ones(4, np.float32)})
    (b,) = session.run(None, {"x": np.full(4, 2.0, np.float32)})
    assert np.array_equal(a, -np.ones(4)) and np.array_equal(b, np.full(4, -2.0))  # a was not overwritten
    a[0] = 5  # writable, the caller's
    del session
    gc.collect()
    assert a[0] == 5 and b[1] == -2  # outlive the session


def test_filters_let_go_of_their_images(shared):
    color = np.full((16, 16, 3), 0.5, np.float32)
    output = np.zeros_like(color)
    before = sys.getrefcount(color), sys.getrefcount(output)
    denoiser = volvox.Device("cpu").new_filter()
    denoiser.set_image("color", color)
    denoiser.set_image("output", output)
    assert sys.getrefcount(color) > before[0]  # kept while set, as OIDN keeps shared images
    denoiser.execute()
    denoiser.unset_image("color")
    assert sys.getrefcount(color) == before[0]
    del denoiser
    gc.collect()
    assert (sys.getrefcount(color), sys.getrefcount(output)) == before
