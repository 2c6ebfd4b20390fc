// Preview before converting all: pick a moment on the thumbnail strip, convert
// 10 s from there with the chosen strength and screen plane, watch it here.
// Without JavaScript the same form posts and the page shows the clip on reload.
"use strict";

(function () {
  var POLL_MS = 1000;

  function clock(s) {
    s = Math.max(0, Math.floor(s));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(sec).padStart(2, "0");
    return h ? h + ":" + mm : mm;
  }

  function getJson(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.json();
    });
  }

  // A held job: reload once media-worker has made its thumbnail strip (after the upload).
  function waitForStrip(section) {
    var url = "/api/jobs/" + section.dataset.jobId;
    (function poll() {
      getJson(url).then(function (job) {
        if (job.thumbnails !== null || job.status !== "awaiting_confirmation") {
          window.location.reload();
        } else { setTimeout(poll, POLL_MS); }
      }, function () { setTimeout(poll, POLL_MS); });
    })();
  }

  function setupPreview(section) {
    var form = document.getElementById("preview-form");
    var slider = document.getElementById("preview-at");
    var label = document.getElementById("preview-at-label");
    var thumbs = Array.prototype.slice.call(document.querySelectorAll("#thumb-strip img"));
    var status = document.getElementById("preview-status");
    var result = document.getElementById("preview-result");
    var player = document.getElementById("preview-player");
    var button = document.getElementById("preview-button");

    function showMoment() {
      var at = Number(slider.value);
      label.textContent = clock(at);
      var nearest = null;
      thumbs.forEach(function (img) {
        if (nearest === null ||
            Math.abs(Number(img.dataset.at) - at) < Math.abs(Number(nearest.dataset.at) - at)) {
          nearest = img;
        }
      });
      thumbs.forEach(function (img) { img.classList.toggle("chosen", img === nearest); });
    }

    // A number as the server writes it (Python: 2.0, 0.25).
    function decimal(x) { return Number.isInteger(x) ? x.toFixed(1) : String(x); }

    function follow(clipId) {
      button.disabled = true;
      (function poll() {
        getJson("/api/jobs/" + clipId).then(function (clip) {
          if (clip.status === "completed") {
            return getJson("/api/jobs/" + clipId + "/playback").then(function (urls) {
              status.textContent = "Preview ready: " + clip.title + ".";
              // What this clip was made with (the line the server renders on a reload).
              document.getElementById("preview-meta").textContent = clip.title +
                " · strength " + decimal(clip.params.divergence) +
                " · screen plane " + decimal(clip.params.convergence);
              result.hidden = false;
              player.src = urls.url;
              button.disabled = false;
              var playing = player.play();
              if (playing && playing.catch) { playing.catch(function () {}); }
            });
          }
          if (clip.status === "failed" || clip.status === "cancelled") {
            status.textContent = "The preview " + clip.status +
              (clip.error ? ": " + clip.error.message : ".");
            button.disabled = false;
            return null;
          }
          status.textContent = "Converting the preview: " + clip.progress.stage + " · " +
            clip.progress.percent + " %";
          setTimeout(poll, POLL_MS);
          return null;
        }).catch(function (err) {
          status.textContent = "Could not follow the preview (" + err.message + "); retrying.";
          setTimeout(poll, POLL_MS * 3);
        });
      })();
    }

    slider.addEventListener("input", showMoment);
    thumbs.forEach(function (img) {
      img.addEventListener("click", function () {
        slider.value = Number(img.dataset.at);  // the preview starts at the moment it shows
        showMoment();
      });
    });
    button.addEventListener("click", function (event) {
      if (!form.reportValidity()) { return; }
      event.preventDefault();
      status.textContent = "Starting the preview…";
      result.hidden = true;
      player.removeAttribute("src");
      fetch("/api/jobs/" + section.dataset.jobId + "/preview", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(Object.assign({
          start_s: Number(slider.value),
          divergence: Number(document.getElementById("preview-divergence").value),
          convergence: Number(document.getElementById("preview-convergence").value),
        }, comfortValues(document.getElementById("preview-comfort-fields")))),
      }).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) { throw new Error(body.detail || ("HTTP " + r.status)); }
          section.dataset.clipId = body.job_id;
          follow(body.job_id);
        });
      }).catch(function (err) { status.textContent = "The preview could not start: " + err.message; });
    });
    showMoment();
    var clip = section.dataset.clipId;
    if (clip && ["completed", "failed", "cancelled"].indexOf(section.dataset.clipStatus) < 0) {
      follow(clip);
    }
  }

  // The comfort controls (templates/_comfort_fields.html) by their field names:
  // checkboxes as true/false, numbers as numbers, choices as their values.
  function comfortValues(fieldset) {
    var values = {};
    if (!fieldset) { return values; }
    fieldset.querySelectorAll("input, select").forEach(function (el) {
      if (el.type === "checkbox") { values[el.name] = el.checked; }
      else if (el.type === "number") { values[el.name] = Number(el.value); }
      else { values[el.name] = el.value; }
    });
    return values;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var reading = document.getElementById("preview-reading");
    if (reading) { waitForStrip(reading); }
    var section = document.getElementById("preview");
    if (section) { setupPreview(section); }
  });
})();
