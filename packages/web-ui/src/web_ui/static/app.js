// StereoSpot pages: local times, drop-and-go and resumable uploads, live progress (SSE).
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

  // The wording of shared_types.byte_size.size_words (binary units, as df -h).
  function humanSize(bytes) {
    var units = [["TB", 1099511627776], ["GB", 1073741824], ["MB", 1048576], ["KB", 1024]];
    for (var i = 0; i < units.length; i++) {
      if (bytes >= units[i][1]) { return (bytes / units[i][1]).toFixed(1) + " " + units[i][0]; }
    }
    return bytes + " bytes";
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
    text("frames", p.frames_done === null || p.frames_done === undefined ? "" :
      p.frames_done + (p.frames_total ? " / " + p.frames_total : "") + " frames" +
      (p.fps ? " · " + p.fps + " fps" : ""));
    text("percent", p.percent + " %");
    var bar = document.getElementById("job-progress");
    if (bar) { bar.value = p.percent; }
    var strip = document.getElementById("strip");
    if (strip) {
      strip.replaceChildren.apply(strip, p.strip.map(function (state, i) {
        var cell = document.createElement("span");
        var pct = (p.segment_percent || {})[i];
        cell.className = "cell " + state;
        cell.title = "segment " + i + ": " + (state === "running" && pct !== undefined ?
          "converting " + pct + " %" : state);
        if (state === "running" && pct !== undefined) { cell.style.setProperty("--p", pct + "%"); }
        return cell;
      }));
    }
    var upload = document.getElementById("upload");
    if (upload && p.status !== "created" && p.status !== "awaiting_confirmation") { upload.hidden = true; }
    document.getElementById("job").dataset.status = p.status;
  }

  // Browser notifications: permission is asked on first use (an upload), and a
  // job page open in some tab says when its job ends.
  function askNotificationPermission() {
    if ("Notification" in window && Notification.permission === "default") {
      Notification.requestPermission();
    }
  }

  function notifyEnded(status) {
    if (!("Notification" in window) || Notification.permission !== "granted") { return; }
    var title = document.querySelector("#job h1");
    var words = { completed: "Your 3D video is ready", failed: "The conversion failed",
      cancelled: "The job was cancelled" };
    try {
      new Notification("StereoSpot: " + (words[status] || status), {
        body: title ? title.textContent : "", tag: document.getElementById("job").dataset.jobId,
      });
    } catch (e) { /* some browsers only notify from a service worker */ }
  }

  function followProgress(url) {
    var source = new EventSource(url);
    var last = null;
    source.addEventListener("progress", function (e) { last = JSON.parse(e.data); drawProgress(last); });
    source.addEventListener("done", function (e) {
      source.close();
      var final = e.data ? JSON.parse(e.data) : last;
      notifyEnded(final && final.status);
      window.location.reload();
    });
    source.addEventListener("gone", function () { source.close(); window.location.href = "/jobs"; });
    // Delete cancels the job first: its "done" must not reload the page over the
    // form's own navigation to the list.
    document.addEventListener("submit", function (e) {
      if (/\/delete$/.test(e.target.getAttribute("action") || "")) { source.close(); }
    }, true);
  }

  function humanSpeed(bps) {
    return bps >= 1048576 ? (bps / 1048576).toFixed(1) + " MB/s" : (bps / 1024).toFixed(0) + " KB/s";
  }

  function checkFile(file, maxBytes) {
    if (!file) { return "Choose a video file first."; }
    if (file.size === 0) { return "That file is empty."; }
    if (file.size > maxBytes) {
      return "That file is " + humanSize(file.size) + "; the limit is " + humanSize(maxBytes) + ".";
    }
    if (file.type && file.type.indexOf("video/") !== 0) { return "That file is not a video."; }
    return null;
  }

  // Upload `file` into job `jobId`, drawing progress, speed and time left into
  // the #upload-* elements of the page. Resolves when the source is stored.
  // With `jobGoesWithIt` (the job was made for this file, by a drop), Cancel
  // cancels the job too, so it does not wait for an upload that never comes.
  function uploadWithUi(file, jobId, singleBytes, jobGoesWithIt) {
    askNotificationPermission();
    var bar = document.getElementById("upload-progress");
    var cancel = document.getElementById("upload-cancel");
    var panel = document.getElementById("upload-panel") || document.getElementById("upload-form");
    panel.classList.remove("failed");
    var upload = new window.StereoUpload.Upload(file, jobId, {
      state: function (message) { text("upload-message", message); },
      progress: function (p) {
        bar.value = Math.floor((100 * p.sent) / p.total);
        text("upload-stats", humanSize(p.sent) + " of " + humanSize(p.total) +
          (p.speed > 0 ? " · " + humanSpeed(p.speed) : "") +
          (p.secondsLeft !== null ? " · " + humanDuration(p.secondsLeft) + " left" : ""));
      },
    }, singleBytes);
    if (cancel) {
      cancel.hidden = false;
      cancel.onclick = function () {
        cancel.hidden = true;
        upload.cancel().then(function () {
          if (!jobGoesWithIt) { text("upload-message", "Upload cancelled."); return null; }
          return window.StereoUpload.api("POST", "/api/jobs/" + jobId + "/cancel", {}).then(
            function () { text("upload-message", "Upload cancelled; its job was cancelled too."); },
            function (err) {
              text("upload-message", "Upload cancelled, but its job could not be cancelled (" +
                err.message + "); cancel it from its job page.");
            });
        });
      };
    }
    return upload.run().then(function () {
      bar.value = 100;
      if (cancel) { cancel.hidden = true; }
      text("upload-message", "Uploaded. Conversion starts in a moment.");
    }, function (err) {
      panel.classList.add("failed");
      if (!upload.cancelled) {
        text("upload-message", "Upload stopped: " + err.message +
          ". Pick the same file again to resume where it stopped.");
      }
      throw err;
    });
  }

  function setupUpload(form) {
    var input = form.querySelector("#file");
    var button = form.querySelector("#upload-button");
    var maxBytes = Number(form.dataset.maxBytes);
    var spm = Number(form.dataset.etaSecondsPerMb || 0);
    var fixed = Number(form.dataset.etaFixedS || 0);
    var jobId = document.getElementById("job").dataset.jobId;

    function say(message, isError) {
      text("upload-message", message);
      form.classList.toggle("failed", Boolean(isError));
    }

    input.addEventListener("change", function () {
      var file = input.files[0];
      var problem = checkFile(file, maxBytes);
      say(problem || "", Boolean(problem));
      text("upload-estimate", !problem && spm > 0 ?
        "Estimated conversion time: " + humanDuration(fixed + spm * file.size / 1048576) + "." : "");
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = input.files[0];
      var problem = checkFile(file, maxBytes);
      if (problem) { say(problem, true); return; }
      button.disabled = true;
      uploadWithUi(file, jobId, Number(form.dataset.singleBytes || 0))
        .catch(function () { button.disabled = false; });
    });
  }

  // Drop and go: a dropped or picked file creates the job with the form's
  // settings (the same form POST as without JavaScript) and uploads at once.
  function setupDrop(form) {
    var zone = document.getElementById("drop-zone");
    var input = document.getElementById("source-file");
    var panel = document.getElementById("upload-panel");
    var maxBytes = Number(zone.dataset.maxBytes);
    zone.hidden = false;

    var waiting = window.StereoUpload.pending();
    if (waiting.length) {
      var note = document.getElementById("pending-uploads");
      note.hidden = false;
      note.querySelector("span").textContent = waiting.map(function (w) { return w.name; }).join(", ");
    }

    // A job left without a title is named after its file by the server when
    // the upload starts (uploads.title_from_file_name, which fits any name).
    function createJob() {
      var data = new FormData(form);
      return fetch(form.action, { method: "POST", body: data, credentials: "same-origin" })
        .then(function (r) {
          var m = /\/jobs\/([0-9a-f-]{36})$/.exec(new URL(r.url).pathname);
          if (!r.ok || !m) { throw new Error("the job could not be created (HTTP " + r.status + ")"); }
          return m[1];
        })
        .then(function (jobId) { return sendDepth(jobId).then(function () { return jobId; }); });
    }

    // An imported depth video (web_ui.depth_upload) goes up before the video itself.
    function sendDepth(jobId) {
      var input = document.getElementById("depth-file");
      if (!input || !input.files.length) { return Promise.resolve(); }
      var data = new FormData();
      data.append("csrf_token", form.elements["csrf_token"].value);
      data.append("file", input.files[0]);
      return fetch("/jobs/" + jobId + "/depth", { method: "POST", body: data, credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) { throw new Error("the depth video was refused (HTTP " + r.status + ")"); }
        });
    }

    function go(file) {
      var problem = checkFile(file, maxBytes);
      panel.hidden = false;
      if (problem) { text("upload-message", problem); panel.classList.add("failed"); return; }
      zone.classList.add("busy");
      text("upload-name", file.name);
      // An interrupted upload of this file resumes into its job; one another
      // tab is sending belongs to that tab: this drop makes its own job.
      var job = window.StereoUpload.resumable(file).then(function (old) {
        return old ? old.jobId : createJob();
      });
      job.then(function (jobId) {
        var link = document.getElementById("upload-job-link");
        link.href = "/jobs/" + jobId;
        link.hidden = false;
        return uploadWithUi(file, jobId, Number(zone.dataset.singleBytes || 0), true).then(function () {
          window.location.href = "/jobs/" + jobId;
        });
      }).catch(function (err) {
        zone.classList.remove("busy");
        if (err && err.message && !/cancelled/.test(err.message) &&
            !panel.classList.contains("failed")) {
          text("upload-message", "Could not start: " + err.message + ".");
          panel.classList.add("failed");
        }
      });
    }

    input.addEventListener("change", function () { if (input.files[0]) { go(input.files[0]); } });
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (e) {
      var file = e.dataTransfer && e.dataTransfer.files[0];
      if (file) { go(file); }
    });
  }

  // A job whose poster frame was never made (it failed early) shows none.
  function hideMissingPosters() {
    document.querySelectorAll("img.poster").forEach(function (img) {
      if (img.complete && img.naturalWidth === 0) { img.hidden = true; }
      img.addEventListener("error", function () { img.hidden = true; });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    hideMissingPosters();
    var form = document.getElementById("upload-form");
    if (form) { setupUpload(form); }
    var create = document.getElementById("create-form");
    if (create && document.getElementById("drop-zone")) { setupDrop(create); }
    var job = document.getElementById("job");
    if (job && job.dataset.eventsUrl) { followProgress(job.dataset.eventsUrl); }
  });
})();
