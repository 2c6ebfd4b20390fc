// While a model downloads, poll /api/models, move its progress bar, reload when it ends.
(function () {
  if (!document.querySelector("tr[data-downloading]")) return;
  async function poll() {
    const response = await fetch("/api/models", { headers: { accept: "application/json" } });
    if (!response.ok) return setTimeout(poll, 3000);
    const models = await response.json();
    let busy = false;
    for (const m of models) {
      const bar = document.querySelector(`tr[data-model="${m.name}"] progress`);
      if (m.download && m.download.status === "downloading") {
        busy = true;
        if (bar) { bar.max = m.download.total_bytes || 1; bar.value = m.download.done_bytes; }
      }
    }
    if (busy) setTimeout(poll, 1000); else location.reload();
  }
  setTimeout(poll, 1000);
})();
