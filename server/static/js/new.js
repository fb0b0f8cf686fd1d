// New game: variant, solo or competitive, special rules drawn at random or picked.
import { clearDraft, newUid, saveDraft, showMessage, today } from "./common.js";

const form = document.getElementById("new-game");
const boxes = Array.from(form.querySelectorAll("input[name=rules]"));
const error = document.getElementById("new-error");

function ruleCount() {
  return form.variant.value === "small-city" ? 2 : 3;
}

function picked() {
  return boxes.filter((b) => b.checked);
}

function update() {
  const chosen = picked();
  document.getElementById("rule-count").textContent = `(${chosen.length} of ${ruleCount()})`;
  document.getElementById("target").textContent =
    chosen.reduce((sum, b) => sum + Number(b.dataset.target), 0);
  document.getElementById("target-note").hidden = form.mode.value !== "competitive";
}

document.getElementById("draw-rules").addEventListener("click", () => {
  const order = boxes.map((b) => [Math.random(), b]).sort((a, b) => a[0] - b[0]);
  order.forEach(([, b], i) => { b.checked = i < ruleCount(); });
  showMessage(error, "");
  update();
});

form.addEventListener("change", update);

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const chosen = picked().map((b) => b.value);
  if (chosen.length !== ruleCount()) {
    showMessage(error, `Pick ${ruleCount()} special rules (or draw them at random); ${chosen.length} picked.`);
    return;
  }
  clearDraft();
  saveDraft({
    uid: newUid(), variant: form.variant.value, rules: chosen,
    competitive: form.mode.value === "competitive", date: today(), notes: "",
    players: [], current: 0,
  });
  const next = event.submitter ? event.submitter.value : "capture";
  window.location.href = next === "manual" ? "/manual" : "/capture";
});

update();
