// StereoSpot pages: local times, direct-to-storage upload, live progress (SSE).
"use strict";

(function () {
  function localTimes() {
    var fmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (!isNaN(d)) { el.textContent = fmt.format(d); }
    });
  }

  function humanDuration(s) {
    s = Math.round(s);
    if (s < 60) { return "about " + s + " s"; }
    if (s < 3600) { return "about " + Math.round(s / 60) + " min"; }
    return "about " + Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
  }

  function humanSize(bytes) {
    return bytes >= 1048576 ? (bytes / 1048576).toFixed(1) + " MB" : (bytes / 1024).toFixed(1) + " KB";
  }

  function text(id, value) {
    var el = document.getElementById(id);
    if (el) { el.textContent = value; }
  }

  function drawProgress(p) {
    text("status", p.status.replace(/_/g, " "));
    text("stage", p.stage);
    text("segments", p.segments_total ? p.segments_done + " / " + p.segments_total + " segments" : "");
    text("eta", p.eta_seconds === null ? "" : humanDuration(p.eta_seconds) + " left");
    text("percent", p.percent + " %");
    var bar = document.getElementById("job-progress");
    if (bar) { bar.value = p.percent; }
    var strip = document.getElementById("strip");
    if (strip) {
      strip.replaceChildren.apply(strip, p.strip.map(function (state, i) {
        var cell = document.createElement("span");
        cell.className = "cell " + state;
        cell.title = "segment " + i + ": " + state;
        return cell;
      }));
    }
    var upload = document.getElementById("upload");
    if (upload && p.status !== "created") { upload.hidden = true; }
    document.getElementById("job").dataset.status = p.status;
  }

  function followProgress(url) {
    var source = new EventSource(url);
    source.addEventListener("progress", function (e) { drawProgress(JSON.parse(e.data)); });
    source.addEventListener("done", function () { source.close(); window.location.reload(); });
    source.addEventListener("gone", function () { source.close(); window.location.href = "/jobs"; });
  }

  function setupUpload(form) {
    var input = form.querySelector("#file");
    var bar = form.querySelector("#upload-progress");
    var button = form.querySelector("#upload-button");
    var maxBytes = Number(form.dataset.maxBytes);
    var spm = Number(form.dataset.etaSecondsPerMb || 0);

    function say(message, isError) {
      text("upload-message", message);
      form.classList.toggle("failed", Boolean(isError));
    }

    function check(file) {
      if (!file) { return "Choose a video file first."; }
      if (file.size === 0) { return "That file is empty."; }
      if (file.size > maxBytes) {
        return "That file is " + humanSize(file.size) + "; the limit is " + humanSize(maxBytes) + ".";
      }
      if (file.type && file.type.indexOf("video/") !== 0) { return "That file is not a video."; }
      return null;
    }

    input.addEventListener("change", function () {
      var file = input.files[0];
      var problem = check(file);
      say(problem || "", Boolean(problem));
      text("upload-estimate", !problem && spm > 0 ?
        "Estimated conversion time: " + humanDuration(spm * file.size / 1048576) + "." : "");
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = input.files[0];
      var problem = check(file);
      if (problem) { say(problem, true); return; }
      var xhr = new XMLHttpRequest();
      xhr.open(form.dataset.uploadMethod || "PUT", form.dataset.uploadUrl);
      var headers = JSON.parse(form.dataset.uploadHeaders || "{}");
      Object.keys(headers).forEach(function (k) { xhr.setRequestHeader(k, headers[k]); });
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) { bar.value = Math.round((100 * e.loaded) / e.total); }
      });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 200 && xhr.status < 300) {
          bar.value = 100;
          say("Uploaded. Conversion starts in a moment.", false);
        } else {
          button.disabled = false;
          say("Upload failed (HTTP " + xhr.status + "). " +
            (xhr.status === 403 ? "The upload link expired: reload the page. " : "") +
            "Please try again.", true);
        }
      });
      xhr.addEventListener("error", function () {
        button.disabled = false;
        say("Upload failed: the connection was lost. Please try again.", true);
      });
      button.disabled = true;
      say("Uploading…", false);
      xhr.send(file);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    var form = document.getElementById("upload-form");
    if (form) { setupUpload(form); }
    var job = document.getElementById("job");
    if (job && job.dataset.eventsUrl) { followProgress(job.dataset.eventsUrl); }
  });
})();
