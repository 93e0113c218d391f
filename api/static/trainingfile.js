// A trainee's history as a file, for the training view (training.js): download it as JSON
// (GET /history) and import an exported file (POST /history, all or nothing). A file that cannot
// be read, is not JSON, or is not a history is named and explained here before anything is sent;
// one the server refuses is explained from its error envelope, naming the field at fault.
import { clear, errorBox, h } from "./core.js";
import { t } from "./i18n.js";

/** The history box: an explanation, the download button, the file input and a status line.
 * `authed(path, method, body)` makes a request with the trainee's token; `onImported()` runs
 * after an import; `onUnauthorized()` gives the way out of an unknown token (a button). */
export function historyBox({ authed, onImported, onUnauthorized }) {
  const note = h("div", { id: "training-history-status", "aria-live": "polite" });
  const report = (...nodes) => clear(note).append(...nodes);
  const refused = (err, lead) => {
    report(lead ? h("p", { class: "notice error history-problem", role: "alert" }, lead) : null, errorBox(err),
      err && err.status === 401 ? onUnauthorized() : null);
  };
  const download = h("button", { type: "button", id: "training-export" }, t("training.export"));
  download.addEventListener("click", async () => {
    clear(note);
    try {
      const history = await authed("/history");
      save(history);
      report(h("p", { class: "meta", id: "training-history-done" },
        t("training.exported", { answers: history.answers.length, reviews: history.reviews.length })));
    } catch (err) {
      refused(err, null);
    }
  });
  const input = h("input", { type: "file", id: "training-import", accept: "application/json,.json" });
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    clear(note);
    try {
      const problem = await importFile(file, authed);
      if (problem.error) {
        refused(problem.error, t("training.importRefused", { file: file.name }) +
          (problem.error.body && problem.error.body.field ? " " + t("training.importField", { field: problem.error.body.field }) : ""));
      } else if (problem.local) {
        report(h("p", { class: "notice error history-problem", role: "alert" }, problem.local));
      } else {
        const done = problem.imported;
        report(h("p", { class: "meta", id: "training-history-done" }, t("training.imported", done)));
        onImported();
      }
    } finally {
      input.value = ""; // the same file can be chosen again
    }
  });
  return h("section", { class: "training-history", "aria-labelledby": "training-history-title" },
    h("h2", { id: "training-history-title" }, t("training.history")),
    h("p", { class: "meta" }, t("training.historyLede")),
    h("div", { class: "history-actions" },
      download,
      h("span", { class: "field" }, h("label", { for: "training-import" }, t("training.import")), input)),
    note);
}

/** The history downloaded as `ygo-rulings-history-<name>-<date>.json`. */
function save(history) {
  const text = JSON.stringify(history, null, 2) + "\n";
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const slug = String(history.name || "trainee").normalize("NFD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "trainee";
  const link = h("a", { href: url, download: "ygo-rulings-history-" + slug + "-" + new Date().toISOString().slice(0, 10) + ".json", hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Read, check and send a history file: {imported} when the server took it, {local: message}
 * when the file is unusable as read here, {error} when the server refused it. */
async function importFile(file, authed) {
  let text;
  try {
    text = await file.text();
  } catch (_) {
    return { local: t("training.importUnreadable", { file: file.name }) };
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { local: t("training.importNotJson", { file: file.name, detail: err.message }) };
  }
  if (!body || typeof body !== "object" || Array.isArray(body) || !Array.isArray(body.answers) || !Array.isArray(body.reviews)) {
    return { local: t("training.importNotHistory", { file: file.name }) };
  }
  try {
    return { imported: await authed("/history", "POST", body) };
  } catch (err) {
    return { error: err };
  }
}
