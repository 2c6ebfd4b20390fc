// See a stereo result in 3D in the page: red/cyan anaglyph or one eye in 2D,
// drawn from the playing SBS/TB video onto a canvas (Canvas 2D, so it works
// without a GPU), and "Enter VR" (WebXR) where the browser offers it.
// Every .viewer on the page gets one (templates/_viewer.html): the job's result
// and a held job's preview clip; window.stereoViewers holds them by element id.
"use strict";

(function () {
  // Where each eye sits in the frame, and how a half layout is stretched back.
  var LAYOUTS = {
    "sbs": { split: "x", half: false }, "half-sbs": { split: "x", half: true },
    "tb": { split: "y", half: false }, "half-tb": { split: "y", half: true },
  };

  function eyeRects(layout, w, h) {
    if (layout.split === "x") {
      return [[0, 0, w / 2, h], [w / 2, 0, w / 2, h]];
    }
    return [[0, 0, w, h / 2], [0, h / 2, w, h / 2]];
  }

  function outputSize(layout, w, h) {
    if (layout.split === "x") { return [layout.half ? w : w / 2, h]; }
    return [w, layout.half ? h : h / 2];
  }

  function Viewer(root) {
    this.root = root;
    this.layout = LAYOUTS[root.dataset.layout];
    this.video = root.querySelector("video");
    this.canvas = root.querySelector("canvas");
    this.ctx = this.canvas.getContext("2d", { willReadFrequently: true });
    this.scratch = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
    this.mode = "file";
  }

  // Draw the current frame in the current mode (no-op while showing the file).
  Viewer.prototype.draw = function () {
    var v = this.video;
    if (this.mode === "file" || !v.videoWidth) { return; }
    var size = outputSize(this.layout, v.videoWidth, v.videoHeight);
    var w = Math.round(size[0]), h = Math.round(size[1]);
    var rects = eyeRects(this.layout, v.videoWidth, v.videoHeight);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w; this.canvas.height = h;
      this.scratch.canvas.width = w; this.scratch.canvas.height = h;
    }
    var left = rects[0], right = rects[1];
    this.ctx.drawImage(v, left[0], left[1], left[2], left[3], 0, 0, w, h);
    if (this.mode === "left") { return; }
    // Colour anaglyph: red from the left eye, green and blue (cyan) from the right.
    this.scratch.drawImage(v, right[0], right[1], right[2], right[3], 0, 0, w, h);
    var out = this.ctx.getImageData(0, 0, w, h), r = this.scratch.getImageData(0, 0, w, h).data;
    var px = out.data;
    for (var i = 0; i < px.length; i += 4) { px[i + 1] = r[i + 1]; px[i + 2] = r[i + 2]; }
    this.ctx.putImageData(out, 0, 0);
  };

  Viewer.prototype.loop = function () {
    var self = this;
    function tick() {
      if (self.mode === "file") { self.looping = false; return; }
      self.draw();
      if (self.video.requestVideoFrameCallback) { self.video.requestVideoFrameCallback(tick); }
      else { window.requestAnimationFrame(tick); }
    }
    if (!self.looping) { self.looping = true; tick(); }
  };

  Viewer.prototype.setMode = function (mode) {
    var self = this;
    self.mode = mode;
    self.root.dataset.mode = mode;
    self.canvas.hidden = mode === "file";
    self.video.classList.toggle("behind", mode !== "file");
    self.root.querySelectorAll("[data-view]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.view === mode));
    });
    if (mode !== "file") {
      self.draw();
      self.loop();
    }
  };

  // WebXR: each eye sees its own half of the frame on a screen-locked quad.
  // Which part of the texture (x, y, w, h in 0..1, y down) one eye samples.
  function eyeTexRect(split, eye) {
    var right = eye === "right";
    return split === "x" ? [right ? 0.5 : 0, 0, 0.5, 1] : [0, right ? 0.5 : 0, 1, 0.5];
  }

  function eyeProgram(gl) {
    var prog = gl.createProgram();
    // r is the eye's texture rectangle; clip space has y up, the video has y down.
    [[gl.VERTEX_SHADER, "attribute vec2 p;varying vec2 t;uniform vec4 r;" +
      "void main(){t=r.xy+vec2(p.x*0.5+0.5,0.5-p.y*0.5)*r.zw;gl_Position=vec4(p,0,1);}"],
     [gl.FRAGMENT_SHADER, "precision mediump float;varying vec2 t;uniform sampler2D s;" +
      "void main(){gl_FragColor=texture2D(s,t);}"]].forEach(function (src) {
      var sh = gl.createShader(src[0]);
      gl.shaderSource(sh, src[1]); gl.compileShader(sh); gl.attachShader(prog, sh);
    });
    gl.linkProgram(prog); gl.useProgram(prog);
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    var loc = gl.getAttribLocation(prog, "p");
    gl.enableVertexAttribArray(loc); gl.vertexAttribPointer(loc, 2, gl.FLOAT, false, 0, 0);
    return gl.getUniformLocation(prog, "r");
  }

  function enterVr(viewer, button, status) {
    button.disabled = true;
    navigator.xr.requestSession("immersive-vr").then(function (session) {
      var gl = document.createElement("canvas").getContext("webgl", { xrCompatible: true });
      session.updateRenderState({ baseLayer: new XRWebGLLayer(session, gl) });
      var tex = gl.createTexture();
      var rect = eyeProgram(gl);
      var split = viewer.layout.split;
      session.requestReferenceSpace("local").then(function (space) {
        function frame(t, xrFrame) {
          session.requestAnimationFrame(frame);
          var pose = xrFrame.getViewerPose(space), layer = session.renderState.baseLayer;
          if (!pose || viewer.video.readyState < 2) { return; }
          gl.bindFramebuffer(gl.FRAMEBUFFER, layer.framebuffer);
          gl.bindTexture(gl.TEXTURE_2D, tex);
          gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
          gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
          gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
          gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, viewer.video);
          pose.views.forEach(function (view) {
            var vp = layer.getViewport(view), r = eyeTexRect(split, view.eye);
            gl.viewport(vp.x, vp.y, vp.width, vp.height);
            gl.uniform4f(rect, r[0], r[1], r[2], r[3]);
            gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
          });
        }
        session.requestAnimationFrame(frame);
        viewer.video.play();
      });
      status.textContent = "In VR: take the headset off or end the session to come back.";
      session.addEventListener("end", function () {
        button.disabled = false;
        status.textContent = "";
      });
    }).catch(function (err) {
      button.disabled = false;
      status.textContent = "Could not start VR: " + (err && err.message ? err.message : err);
    });
  }

  // "Enter VR" shows only where the browser can open an immersive-vr session;
  // elsewhere it stays disabled and says why.
  function offerVr(viewer) {
    var button = viewer.root.querySelector(".enter-vr");
    var status = viewer.root.querySelector(".vr-status");
    if (!button) { return; }
    function unavailable(why) {
      button.hidden = false;
      button.disabled = true;
      status.textContent = why;
    }
    if (!navigator.xr || !navigator.xr.isSessionSupported) {
      unavailable("VR needs a browser with WebXR (for example the headset's own browser); " +
                  "this one has none.");
      return;
    }
    navigator.xr.isSessionSupported("immersive-vr").then(function (ok) {
      if (!ok) { unavailable("This browser has WebXR but no VR headset is connected."); return; }
      button.hidden = false;
      button.disabled = false;
      button.addEventListener("click", function () { enterVr(viewer, button, status); });
    }).catch(function () { unavailable("This browser cannot tell whether VR is available."); });
  }

  function attach(root) {
    var viewer = new Viewer(root);
    var modes = root.querySelector(".view-modes");
    if (modes) { modes.hidden = false; }
    root.querySelectorAll("[data-view]").forEach(function (b) {
      b.addEventListener("click", function () { viewer.setMode(b.dataset.view); });
    });
    ["loadeddata", "seeked", "play"].forEach(function (name) {
      viewer.video.addEventListener(name, function () { viewer.draw(); });
    });
    offerVr(viewer);
    return viewer;
  }

  document.addEventListener("DOMContentLoaded", function () {
    window.stereoViewers = {};
    document.querySelectorAll(".viewer").forEach(function (root) {
      if (!LAYOUTS[root.dataset.layout]) { return; }
      window.stereoViewers[root.id] = attach(root);
    });
    window.stereoViewer = window.stereoViewers.viewer;
  });
})();
