"""The denoiser with OIDN's real weights (../shared): volvox.denoise and the OIDN-style Filter give
the pixels `volvox denoise` writes, on the CPU and on Vulkan; arrays are used in place where their
layout allows; progress callbacks, cancellation and the GIL."""
import threading

import numpy as np
import pytest

import volvox
from conftest import max_abs_diff, run_cli


@pytest.fixture(scope="module")
def crop(shared, tmp_path_factory):
    """A 64x48 crop of ../shared's render (colour, albedo, normal in [-1, 1]) and its PFM files."""
    folder = tmp_path_factory.mktemp("crop")
    window = (slice(400, 448), slice(500, 564))
    images = {
        "color": volvox.read_image(shared / "images" / "noisy.png")[window][..., :3],
        "albedo": volvox.read_image(shared / "images" / "albedo.png")[window][..., :3],
        "normal": volvox.read_image(shared / "images" / "normal.png")[window][..., :3] * 2 - 1,
    }
    images = {name: np.ascontiguousarray(image) for name, image in images.items()}
    files = {}
    for name, image in images.items():
        files[name] = folder / f"{name}.pfm"
        volvox.write_image(files[name], image)
    return images, files


def cli_denoise(cli, tmp_path, files, device, hdr=False, aux=True, precision=None):
    out = tmp_path / f"cli_{device}.pfm"
    args = ["denoise", "--color", files["color"], "--device", device, "-o", out]
    if aux:
        args += ["--albedo", files["albedo"], "--normal", files["normal"]]
    if hdr:
        args += ["--hdr"]
    run_cli(cli, args)
    return volvox.read_image(out)


@pytest.mark.parametrize("hdr,aux", [(False, True), (False, False), (True, True)])
def test_denoise_gives_the_pixels_of_volvox_denoise_on_the_cpu(cli, crop, tmp_path, hdr, aux):
    images, files = crop
    expected = cli_denoise(cli, tmp_path, files, "cpu", hdr=hdr, aux=aux)
    got = volvox.denoise(images["color"], images["albedo"] if aux else None, images["normal"] if aux else None,
                         hdr=hdr, device="cpu")
    assert got.dtype == np.float32 and got.shape == images["color"].shape
    assert max_abs_diff(got, expected) == 0.0  # the same engine, device and weights: the same pixels
    assert max_abs_diff(got, images["color"]) > 0.01  # and it did denoise


def test_denoise_gives_the_pixels_of_volvox_denoise_on_vulkan(cli, crop, tmp_path, vulkan):
    images, files = crop
    expected = cli_denoise(cli, tmp_path, files, "vulkan")
    got = volvox.denoise(images["color"], images["albedo"], images["normal"], device="vulkan")
    assert max_abs_diff(got, expected) == 0.0


def test_write_image_writes_what_the_cli_writes(cli, crop, tmp_path):
    """EXR output of the CLI (half by default) and write_image(exr_half=True) read back alike."""
    images, files = crop
    run_cli(cli, ["denoise", "--color", files["color"], "--device", "cpu", "-o", tmp_path / "cli.exr"])
    volvox.write_image(tmp_path / "py.exr", volvox.denoise(images["color"], device="cpu"), exr_half=True)
    assert max_abs_diff(volvox.read_image(tmp_path / "py.exr"), volvox.read_image(tmp_path / "cli.exr")) == 0.0


def test_oidn_style_filter_equals_the_short_way(crop):
    images, _ = crop
    device = volvox.Device("cpu")
    device.commit()
    output = np.zeros_like(images["color"])
    denoiser = device.new_filter("RT")
    denoiser.set_image("color", images["color"])
    denoiser.set_image("albedo", images["albedo"])
    denoiser.set_image("normal", images["normal"])
    denoiser.set_image("output", output)
    denoiser.set("hdr", False)
    denoiser.set("quality", "high")
    denoiser.commit()
    denoiser.execute()
    expected = volvox.denoise(images["color"], images["albedo"], images["normal"], device=device)
    assert max_abs_diff(output, expected) == 0.0
    # Executing again after changing the colour in place: the filter reads the array itself.
    images_color = images["color"].copy()
    denoiser.set_image("color", images_color)
    images_color *= 0.5
    denoiser.execute()
    assert max_abs_diff(output, volvox.denoise(images_color, images["albedo"], images["normal"], device=device)) == 0


def test_arrays_are_used_in_place_when_their_layout_allows(crop):
    images, _ = crop
    color = images["color"]
    expected = volvox.denoise(color, device="cpu")
    h, w, _ = color.shape
    device = volvox.Device("cpu")

    def run(color_array, output_array, fill=None):
        denoiser = device.new_filter()
        denoiser.set_image("color", color_array)
        denoiser.set_image("output", output_array)
        if fill is not None:
            fill()  # after set_image: seen only if the filter reads the caller's memory
        denoiser.execute()

    # Row-strided views (a window of a larger image) are read and written in place.
    big_in = np.zeros((h + 10, w + 20, 3), np.float32)
    big_out = np.zeros((h + 10, w + 20, 3), np.float32)
    color_view, out_view = big_in[5:5 + h, 7:7 + w], big_out[5:5 + h, 7:7 + w]
    run(color_view, out_view, fill=lambda: np.copyto(color_view, color))
    assert max_abs_diff(out_view, expected) == 0.0
    assert not big_out[:5].any() and not big_out[:, :7].any()  # nothing outside the window
    # RGBA (pixel stride 16): alpha neither read nor written.
    rgba = np.zeros((h, w, 4), np.float32)
    out_rgba = np.full((h, w, 4), 7.0, np.float32)
    run(rgba, out_rgba, fill=lambda: np.copyto(rgba[..., :3], color))
    assert max_abs_diff(out_rgba[..., :3], expected) == 0.0 and np.all(out_rgba[..., 3] == 7.0)
    # Planar memory (channels apart) cannot be addressed: copied in, and copied back out.
    planar_in = np.ascontiguousarray(color.transpose(2, 0, 1)).transpose(1, 2, 0)
    planar_out = np.zeros((3, h, w), np.float32).transpose(1, 2, 0)
    run(planar_in, planar_out)
    assert max_abs_diff(planar_out, expected) == 0.0
    # In place: the output is the colour array.
    in_place = color.copy()
    run(in_place, in_place)
    assert max_abs_diff(in_place, expected) == 0.0


def test_rgba_and_float16_through_denoise(crop):
    images, _ = crop
    color = images["color"]
    expected = volvox.denoise(color, device="cpu")
    rgba = np.concatenate([color, np.full(color.shape[:2] + (1,), 0.25, np.float32)], axis=2)
    out = volvox.denoise(rgba, device="cpu")
    assert out.shape == rgba.shape and max_abs_diff(out[..., :3], expected) == 0.0 and np.all(out[..., 3] == 0.25)
    half = volvox.denoise(color.astype(np.float16), device="cpu")
    assert half.dtype == np.float16
    assert max_abs_diff(half.astype(np.float32), expected) < 0.02  # fp16 input and output rounding


def test_progress_reaches_one_and_can_cancel(crop):
    images, _ = crop
    seen = []
    volvox.denoise(images["color"], device="cpu", progress=lambda p: seen.append(p))
    assert seen and seen[-1] == pytest.approx(1.0)
    assert all(0.0 <= a <= b <= 1.0 for a, b in zip(seen, seen[1:]))
    with pytest.raises(volvox.Cancelled):
        volvox.denoise(images["color"], device="cpu", progress=lambda p: False)

    class Stop(Exception):
        pass

    def fail(progress):
        raise Stop("from the callback")

    with pytest.raises(Stop, match="from the callback"):
        volvox.denoise(images["color"], device="cpu", progress=fail)


def test_another_thread_cancels_and_the_gil_is_released(crop):
    """While execute() runs, other Python threads run (the counter moves between the first and the
    last progress call); one of them cancels the run through an Event the callback reads."""
    images, _ = crop
    big = np.ascontiguousarray(np.tile(images["color"], (4, 4, 1)))  # 256x192: long enough to be watched and cancelled
    counter = {"n": 0, "at_progress": []}
    running = threading.Event()
    stop_counting = threading.Event()

    def count():
        while not stop_counting.is_set():
            counter["n"] += 1

    # One engine thread leaves the counter a core on a 2-core machine: with every core busy the
    # scheduler may not run it between the progress calls of a short run (CI saw that once).
    one_thread = volvox.Device("cpu", num_threads=1)
    counting = threading.Thread(target=count)
    counting.start()
    try:
        volvox.denoise(big, device=one_thread, progress=lambda p: counter["at_progress"].append(counter["n"]))
    finally:
        stop_counting.set()
        counting.join()
    marks = counter["at_progress"]
    assert len(marks) > 2 and marks[-1] > marks[0], marks  # the other thread ran while the engine did

    cancel = threading.Event()

    def on_progress(p):
        running.set()
        return not cancel.is_set()

    canceller = threading.Thread(target=lambda: running.wait(30) and cancel.set())
    canceller.start()
    with pytest.raises(volvox.Cancelled):
        volvox.denoise(big, device="cpu", progress=on_progress)
    canceller.join()
