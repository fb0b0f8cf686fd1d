// Calibrate: photograph the calibration layout; the site fits its colours to the player's
// pieces and reads every photo with them until the player forgets the calibration.
import { api, el, showMessage } from "./common.js";
import { onPhotoChosen, sendPhoto } from "./photo.js";

const MAX_UPLOAD = Number(document.getElementById("calibrate-title").dataset.maxUpload);

const status = document.getElementById("calibration-status");
const summary = document.getElementById("calibration-summary");
const details = document.getElementById("calibration-details");
const report = document.getElementById("calibration-report");
const error = document.getElementById("calibrate-error");
const forget = document.getElementById("forget");
const progress = document.getElementById("progress");
const label = document.getElementById("progress-label");
const bar = document.getElementById("progress-bar");

function when(iso) {
  return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

// What the calibration's report (GET /api/calibration) means for the player.
function meaning(r) {
  const said = [];
  if (r.unseen.length) {
    said.push(`No ${r.unseen.join(" or ")} piece stood out of the table in the photo: those keep the usual colours.`);
  }
  const wrong = r.candidates - r.read_right;
  said.push(wrong === 0
    ? `The ${r.unseen.length ? "other colours" : "five colours"} were told apart on this table.`
    : `${wrong} of the ${r.candidates} patches of colour on the pieces still read as another colour: check the colours of your next photos, or calibrate again in better light.`);
  const resized = 15 - r.sizes_right;
  if (resized) {
    said.push(`${resized} of the 15 pieces ${resized > 1 ? "were" : "was"} read at another size than the layout shows: check that yours is laid out as below.`);
  }
  if (r.left_out) said.push(`${r.left_out} piece${r.left_out > 1 ? "s" : ""} beside the layout ${r.left_out > 1 ? "were" : "was"} left out.`);
  return said.join(" ");
}

// Show the calibration's status (GET /api/calibration); `fresh`: one just made.
function show(state, fresh = false) {
  status.classList.toggle("ok", state.calibrated);
  if (state.calibrated) {
    status.textContent = fresh
      ? "Calibrated. Your photos are read with colours fitted to your pieces from now on."
      : `Your photos are read with colours fitted to your pieces (calibrated ${when(state.made)}).`;
  } else {
    status.textContent = `Your photos are read with the ${state.base} colours.`
      + (state.problem ? ` Your calibration could not be used (${state.problem}); calibrate again.` : "");
  }
  const r = state.report;
  summary.textContent = r ? meaning(r) : "";
  summary.hidden = details.hidden = !r;
  report.replaceChildren(...(r ? r.lines : []).map((line) => el("li", { text: line })));
  forget.hidden = !state.calibrated;
}

async function handle(file) {
  showMessage(error, "");
  progress.hidden = false;
  try {
    show(await sendPhoto(file, "/api/calibration", {},
      { bar, label, maxUpload: MAX_UPLOAD, reading: "fitting the colours to your pieces…" }), true);
  } catch (err) {
    showMessage(error, `${err.message} Nothing was changed.`);
  } finally {
    progress.hidden = true;
  }
}

forget.addEventListener("click", async () => {
  showMessage(error, "");
  try {
    show(await api("/api/calibration", { method: "DELETE" }));
  } catch (err) {
    showMessage(error, err.message);
  }
});

api("/api/calibration").then((state) => show(state)).catch((err) => showMessage(error, err.message));
onPhotoChosen(handle);
