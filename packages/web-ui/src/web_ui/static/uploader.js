// Upload of a job's source straight to storage (S3 or the local /storage).
// A file that fits one request goes as one presigned POST form whose signed
// policy makes the storage refuse a file over the cap. A bigger one uses S3's
// multipart protocol on either backend, resumable: parts go on presigned URLs;
// web-ui only opens, lists, completes and aborts. The upload id is kept in
// localStorage under the file's name, size and date, so after a reload (or a
// dropped network) picking the same file sends only the parts storage lacks.
"use strict";

window.StereoUpload = (function () {
  var PARALLEL = 3;          // parts in flight at once
  var RETRIES = 6;           // tries per part before giving up
  var BATCH = 20;            // part URLs fetched per request
  var SPEED_WINDOW_MS = 5000;
  var PREFIX = "stereo-spot-upload:";

  function fingerprint(file) {
    return PREFIX + file.name + ":" + file.size + ":" + file.lastModified;
  }

  function saved(file) {
    try { return JSON.parse(window.localStorage.getItem(fingerprint(file)) || "null"); }
    catch (e) { return null; }
  }

  // Forget the saved upload of `file` (only if it is job `jobId`'s, when given:
  // another tab's upload of the same file may have saved itself since).
  function forget(file, jobId) {
    var old = saved(file);
    if (!jobId || !old || old.jobId === jobId) { window.localStorage.removeItem(fingerprint(file)); }
  }

  function lockName(file, jobId) { return fingerprint(file) + "@" + jobId; }

  // The saved upload of `file` that may be resumed here, or null: none, or one
  // another tab is sending right now (it holds that upload's Web Lock while it
  // runs), which is that tab's job, not this drop's. Resolves, never rejects.
  function resumable(file) {
    var old = saved(file);
    if (!old || !(navigator.locks && navigator.locks.query)) { return Promise.resolve(old); }
    return navigator.locks.query().then(function (state) {
      var name = lockName(file, old.jobId);
      var busy = state.held.some(function (lock) { return lock.name === name; });
      return busy ? null : old;
    }, function () { return old; });
  }

  // Run `work` (a function returning a promise) holding the Web Lock of the
  // file's upload into `jobId`, where the browser has them (secure contexts),
  // so other tabs see that upload is live.
  function holdingLock(file, jobId, work) {
    if (!(navigator.locks && navigator.locks.request)) { return work(); }
    return navigator.locks.request(lockName(file, jobId), work);
  }

  function pending() {
    var out = [];
    for (var i = 0; i < window.localStorage.length; i++) {
      var k = window.localStorage.key(i);
      if (k.indexOf(PREFIX) === 0) {
        try { out.push(JSON.parse(window.localStorage.getItem(k))); } catch (e) { /* skip */ }
      }
    }
    return out;
  }

  function api(method, url, body) {
    var init = { method: method, credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (r) {
      if (r.status === 204) { return null; }
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.ok) { return data; }
        var detail = typeof data.detail === "string" ? data.detail : "HTTP " + r.status;
        var err = new Error(detail);
        err.status = r.status;
        throw err;
      });
    });
  }

  function wait(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  // The storage's reason in an error answer (S3 sends XML with a <Message>).
  function storageReason(xhr) {
    var m = /<Message>([^<]*)<\/Message>/.exec(xhr.responseText || "");
    return m ? m[1] : (xhr.responseText || "").slice(0, 200) || "HTTP " + xhr.status;
  }

  // hooks: progress({sent, total, speed, secondsLeft}), state(text);
  // singleBytes: files up to this size go in one form POST.
  function Upload(file, jobId, hooks, singleBytes) {
    this.file = file;
    this.jobId = jobId;
    this.hooks = hooks || {};
    this.singleBytes = singleBytes || 0;
    this.base = "/api/jobs/" + jobId + "/uploads";
    this.xhrs = [];
    this.cancelled = false;
    this.samples = [];
  }

  Upload.prototype.partRange = function (n) {
    var start = (n - 1) * this.plan.part_size;
    return [start, Math.min(start + this.plan.part_size, this.file.size)];
  };

  Upload.prototype.open = function () {
    var self = this, old = saved(self.file);
    var resume = old && old.jobId === self.jobId ?
      api("GET", self.base + "/" + encodeURIComponent(old.uploadId)).then(function (state) {
        self.plan = old.plan;
        return state.parts;
      }) : Promise.reject(new Error("nothing to resume"));
    return resume.catch(function () {
      forget(self.file);
      return api("POST", self.base, { file_name: self.file.name, size: self.file.size })
        .then(function (plan) {
          self.plan = plan;
          window.localStorage.setItem(fingerprint(self.file), JSON.stringify({
            jobId: self.jobId, uploadId: plan.upload_id, plan: plan, name: self.file.name,
            size: self.file.size,
          }));
          return [];
        });
    });
  };

  Upload.prototype.report = function () {
    var inflight = this.xhrs.reduce(function (a, x) { return a + (x.loaded || 0); }, 0);
    var sent = this.stored + this.sentNow + inflight;
    var now = Date.now();
    this.samples.push([now, this.sentNow + inflight]);
    while (this.samples.length > 2 && now - this.samples[0][0] > SPEED_WINDOW_MS) {
      this.samples.shift();
    }
    var first = this.samples[0], span = (now - first[0]) / 1000;
    var speed = span > 0.2 ? (this.sentNow + inflight - first[1]) / span : 0;
    if (this.hooks.progress) {
      this.hooks.progress({ sent: sent, total: this.file.size, speed: speed,
        secondsLeft: speed > 0 ? (this.file.size - sent) / speed : null });
    }
  };

  Upload.prototype.urlFor = function (n, fresh) {
    var self = this;
    if (!fresh && self.urls[n]) { return Promise.resolve(self.urls[n]); }
    var batch = self.todo.filter(function (m) { return m >= n; }).slice(0, BATCH);
    if (batch.indexOf(n) < 0) { batch.unshift(n); }
    return api("POST", self.base + "/" + encodeURIComponent(self.plan.upload_id) + "/parts",
      { part_numbers: batch }).then(function (res) {
      Object.keys(res.urls).forEach(function (k) { self.urls[k] = res.urls[k]; });
      return self.urls[n];
    });
  };

  Upload.prototype.putPart = function (n, url) {
    var self = this, range = self.partRange(n);
    return new Promise(function (resolve, reject) {
      var xhr = new XMLHttpRequest();
      xhr.loaded = 0;
      xhr.open("PUT", url);
      xhr.upload.addEventListener("progress", function (e) { xhr.loaded = e.loaded; self.report(); });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 200 && xhr.status < 300) { resolve(); }
        else {
          // 507: the server's disk is full; its sentence says where (the upload resumes later)
          var err = new Error(xhr.status === 507 ? storageReason(xhr) : "HTTP " + xhr.status);
          err.status = xhr.status;
          reject(err);
        }
      });
      xhr.addEventListener("error", function () { reject(new Error("connection lost")); });
      xhr.addEventListener("abort", function () { reject(new Error("cancelled")); });
      self.xhrs.push(xhr);
      xhr.send(self.file.slice(range[0], range[1]));
    }).then(function () {
      self.sentNow += range[1] - range[0];
    }).finally(function () {
      self.xhrs = self.xhrs.filter(function (x) { return x.readyState !== 4; });
      self.report();
    });
  };

  // One part, retried on its own (fresh URL after a 403, backoff after errors).
  Upload.prototype.sendPart = function (n) {
    var self = this;
    function attempt(tries, fresh) {
      return self.urlFor(n, fresh).then(function (url) { return self.putPart(n, url); })
        .catch(function (err) {
          if (self.cancelled || err.status === 413 || err.status === 404 || err.status === 507 ||
              tries >= RETRIES) {
            throw err;
          }
          if (self.hooks.state) { self.hooks.state("Retrying part " + n + " (" + err.message + ")…"); }
          return wait(Math.min(8000, 500 * Math.pow(2, tries))).then(function () {
            return attempt(tries + 1, err.status === 403);
          });
        });
    }
    return attempt(1, false);
  };

  // One presigned POST: the form's fields, then the file as the last field.
  Upload.prototype.runForm = function () {
    var self = this;
    self.stored = 0;
    self.sentNow = 0;
    if (self.hooks.state) { self.hooks.state("Uploading…"); }
    return api("POST", self.base + "/form", { file_name: self.file.name, size: self.file.size })
      .then(function (form) {
        var data = new FormData();
        Object.keys(form.fields).forEach(function (k) { data.append(k, form.fields[k]); });
        data.append("file", self.file);
        return new Promise(function (resolve, reject) {
          var xhr = new XMLHttpRequest();
          xhr.loaded = 0;
          xhr.open("POST", form.url);
          xhr.upload.addEventListener("progress", function (e) {
            xhr.loaded = Math.min(e.loaded, self.file.size); self.report();
          });
          xhr.addEventListener("load", function () {
            if (xhr.status >= 200 && xhr.status < 300) { resolve({ size: self.file.size }); }
            else {
              var err = new Error("the storage refused the file: " + storageReason(xhr));
              err.status = xhr.status;
              reject(err);
            }
          });
          xhr.addEventListener("error", function () { reject(new Error("connection lost")); });
          xhr.addEventListener("abort", function () { reject(new Error("cancelled")); });
          self.xhrs.push(xhr);
          xhr.send(data);
        });
      }).finally(function () { self.xhrs = []; });
  };

  Upload.prototype.run = function () {
    var self = this;
    return holdingLock(self.file, self.jobId, function () { return self.runHere(); });
  };

  Upload.prototype.runHere = function () {
    var self = this;
    if (self.file.size <= self.singleBytes && !saved(self.file)) { return self.runForm(); }
    return self.open().then(function (have) {
      var count = self.plan.part_count, done = {};
      have.forEach(function (p) {
        var range = p.part_number <= count ? self.partRange(p.part_number) : null;
        if (range && p.size === range[1] - range[0]) { done[p.part_number] = p.size; }
      });
      self.stored = Object.keys(done).reduce(function (a, k) { return a + done[k]; }, 0);
      self.sentNow = 0;
      self.urls = {};
      self.todo = [];
      for (var n = 1; n <= count; n++) { if (!done[n]) { self.todo.push(n); } }
      if (self.hooks.state) {
        self.hooks.state(self.stored ? "Resuming: " + Object.keys(done).length + " of " + count +
          " parts were already stored." : "Uploading…");
      }
      self.report();
      var queue = self.todo.slice();
      function worker() {
        if (self.cancelled) { return Promise.reject(new Error("cancelled")); }
        if (self.stopped) { return Promise.resolve(); }
        var n = queue.shift();
        return n === undefined ? Promise.resolve() : self.sendPart(n).then(worker);
      }
      var workers = [];
      for (var i = 0; i < Math.min(PARALLEL, Math.max(queue.length, 1)); i++) { workers.push(worker()); }
      return Promise.all(workers).catch(function (err) {
        self.stopped = true;  // keep what is stored: picking the file again resumes
        self.xhrs.forEach(function (x) { x.abort(); });
        throw err;
      });
    }).then(function () {
      if (self.hooks.state) { self.hooks.state("Finishing the upload…"); }
      return api("POST", self.base + "/" + encodeURIComponent(self.plan.upload_id) + "/complete", {});
    }).then(function (res) {
      forget(self.file, self.jobId);
      return res;
    });
  };

  Upload.prototype.cancel = function () {
    this.cancelled = true;
    this.xhrs.forEach(function (x) { x.abort(); });
    forget(this.file, this.jobId);
    if (this.plan) {
      return api("DELETE", this.base + "/" + encodeURIComponent(this.plan.upload_id))
        .catch(function () { return null; });
    }
    return Promise.resolve(null);
  };

  return { Upload: Upload, saved: saved, resumable: resumable, pending: pending, forget: forget,
    api: api };
})();
