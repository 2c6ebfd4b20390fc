""""Enter VR" (WebXR) in a real Chromium. Headless Chromium has no XR device,
so an init script installs a fake ``navigator.xr`` and ``XRWebGLLayer`` that
record what the page asks for and drive its XR frames; everything the page
draws is real WebGL, read back per eye from the viewports the fake layer hands
out. Without WebXR the button stays disabled and says why."""

from __future__ import annotations

import subprocess

import pytest
from shared_types.models import OutputMode
from stereo_media.ffmpeg import ffmpeg_path

from .conftest import VIEWPORT, screenshot
from .test_viewer_browser import close, completed_job

# Grey levels of each eye's top and bottom half in the test video: the eyes
# differ, and so do top and bottom (an eye drawn upside down is caught).
EYES = {"left": (200, 140), "right": (60, 100)}

FAKE_XR = """(() => {
  const log = { supported: [], requested: [], layers: [], renderStates: [], spaces: [],
                frames: [], ended: 0 };
  window.__xrLog = log;
  let gl = null;
  // Chromium honours xrCompatible only with a real XR runtime: record what was asked.
  const getContext = HTMLCanvasElement.prototype.getContext;
  const asked = new WeakMap();
  HTMLCanvasElement.prototype.getContext = function (type, attrs) {
    const context = getContext.call(this, type, attrs);
    if (context && type === "webgl") { asked.set(context, attrs || {}); }
    return context;
  };
  class FakeXRWebGLLayer {
    constructor(session, context) {
      gl = context;
      this.framebuffer = null;  // the default framebuffer of the page's WebGL canvas
      log.layers.push({ xrCompatible: !!(asked.get(context) || {}).xrCompatible,
                        sameSession: session === window.__xrSession });
    }
    getViewport(view) {
      const w = gl.drawingBufferWidth >> 1, h = gl.drawingBufferHeight;
      return { x: view.eye === "right" ? w : 0, y: 0, width: w, height: h };
    }
  }
  class FakeXRSession extends EventTarget {
    constructor() { super(); this.renderState = { baseLayer: null }; this.callbacks = []; }
    updateRenderState(state) {
      log.renderStates.push({ baseLayer: state.baseLayer instanceof FakeXRWebGLLayer });
      Object.assign(this.renderState, state);
    }
    requestReferenceSpace(type) { log.spaces.push(type); return Promise.resolve({ type }); }
    requestAnimationFrame(cb) { this.callbacks.push(cb); return this.callbacks.length; }
    end() { log.ended += 1; this.dispatchEvent(new Event("end")); return Promise.resolve(); }
    // Test driver: one XR frame with two views, then each eye's pixels read back
    // at a quarter and three quarters of its viewport's height (GL y is up).
    step() {
      const callbacks = this.callbacks;
      this.callbacks = [];
      const views = [{ eye: "left" }, { eye: "right" }];
      const frame = { session: this, getViewerPose: () => ({ views }) };
      callbacks.forEach((cb) => cb(performance.now(), frame));
      const layer = this.renderState.baseLayer, read = {};
      views.forEach((view) => {
        const vp = layer.getViewport(view), at = (f) => {
          const px = new Uint8Array(4);
          gl.readPixels(vp.x + (vp.width >> 1), vp.y + Math.round(vp.height * f), 1, 1,
                        gl.RGBA, gl.UNSIGNED_BYTE, px);
          return Array.from(px);
        };
        read[view.eye] = { top: at(0.75), bottom: at(0.25), viewport: vp };
      });
      log.frames.push({ callbacks: callbacks.length, read });
      return read;
    }
  }
  window.XRWebGLLayer = FakeXRWebGLLayer;
  Object.defineProperty(navigator, "xr", { configurable: true, value: {
    isSessionSupported(mode) {
      log.supported.push(mode);
      return Promise.resolve(mode === "immersive-vr");
    },
    requestSession(mode, init) {
      log.requested.push(mode);
      window.__xrSession = new FakeXRSession();
      return Promise.resolve(window.__xrSession);
    },
  } });
})();"""

NO_XR = "Object.defineProperty(navigator, 'xr', { configurable: true, value: undefined });"


def make_stereo(path, stack: str, *, eye=(64, 64), seconds=2):
    """A full SBS (``hstack``) or TB (``vstack``) clip; each eye is two grey bands."""
    w, h = eye
    inputs = []
    for name, (top, bottom) in EYES.items():
        inputs += [f"color=c=0x{top:02X}{top:02X}{top:02X}:s={w}x{h // 2}:d={seconds}[{name}t]",
                   f"color=c=0x{bottom:02X}{bottom:02X}{bottom:02X}:s={w}x{h // 2}:d={seconds}"
                   f"[{name}b]",
                   f"[{name}t][{name}b]vstack[{name}]"]
    graph = ";".join(inputs) + f";[left][right]{stack}"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-filter_complex", graph, "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(path)],
                   check=True, timeout=120)
    return path


def open_result(server, browser, tmp_path, mode, init_script):
    base, backend = server
    stack = "hstack" if mode == OutputMode.SBS else "vstack"
    job = completed_job(backend, make_stereo(tmp_path / f"{mode.value}.mp4", stack), mode=mode)
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(init_script)
    page.goto(f"{base}/jobs/{job.job_id}")
    page.wait_for_function("() => document.getElementById('player').readyState >= 2",
                           timeout=30_000)
    return page


def eye_matches(read, eye):
    top, bottom = EYES[eye]
    got = read[eye]
    return close(got["top"], (top,) * 3) and close(got["bottom"], (bottom,) * 3)


@pytest.mark.parametrize("mode", [OutputMode.SBS, OutputMode.TB])
def test_enter_vr_draws_each_view_to_its_own_eye(server, browser, tmp_path, mode):
    page = open_result(server, browser, tmp_path, mode, FAKE_XR)
    page.wait_for_selector("#enter-vr:not([hidden]):enabled")
    assert page.evaluate("() => window.__xrLog.supported") == ["immersive-vr"]
    if mode == OutputMode.SBS:
        screenshot(page, "job-enter-vr", "#viewer")

    page.click("#enter-vr")
    page.wait_for_function("() => window.__xrSession && window.__xrSession.callbacks.length > 0",
                           timeout=30_000)
    log = page.evaluate("() => window.__xrLog")
    assert log["requested"] == ["immersive-vr"]
    assert log["layers"] == [{"xrCompatible": True, "sameSession": True}]
    assert log["renderStates"] == [{"baseLayer": True}]
    assert log["spaces"] == ["local"]
    assert page.is_disabled("#enter-vr")

    # Frames are submitted while the session lasts: each asks for the next one,
    # and each eye's viewport shows that eye's half of the video, upright.
    page.wait_for_function(
        "() => { const r = window.__xrSession.step(); return r.left.top[3] === 255 && "
        "r.left.top[0] !== r.right.top[0]; }", timeout=30_000, polling=200)
    read = page.evaluate("() => window.__xrSession.step()")
    assert eye_matches(read, "left"), read
    assert eye_matches(read, "right"), read
    assert read["left"]["viewport"]["x"] == 0 and read["right"]["viewport"]["x"] > 0
    frames = page.evaluate("() => window.__xrLog.frames")
    assert all(f["callbacks"] == 1 for f in frames), frames  # one pending frame, re-requested
    if mode == OutputMode.SBS:
        screenshot(page, "job-in-vr", "#viewer")

    page.evaluate("() => window.__xrSession.end()")
    page.wait_for_selector("#enter-vr:enabled")
    assert page.inner_text("#vr-status") == ""


def test_without_webxr_enter_vr_is_disabled_and_says_why(server, browser, tmp_path):
    page = open_result(server, browser, tmp_path, OutputMode.SBS, NO_XR)
    page.wait_for_function("() => document.getElementById('vr-status').textContent !== ''")
    assert page.is_visible("#enter-vr")
    assert page.is_disabled("#enter-vr")
    assert "WebXR" in page.inner_text("#vr-status")
    screenshot(page, "job-no-webxr", "#viewer")


def test_headless_chromium_as_it_is_offers_no_vr_session(server, browser, tmp_path):
    """The control: the real browser here has no headset, whatever WebXR it has."""
    page = open_result(server, browser, tmp_path, OutputMode.SBS, "void 0;")
    page.wait_for_function("() => document.getElementById('vr-status').textContent !== ''")
    assert page.is_disabled("#enter-vr")
