// Capture: take or choose a photo, shrink it on the phone (photo.js), upload it with visible
// progress, and keep the detection as the current player's city before moving on to the review.
import { describeGame, loadDraft, rulesById, saveDraft, showMessage } from "./common.js";
import { entryFromDetection } from "./city.js";
import { onPhotoChosen, sendPhoto } from "./photo.js";

const MAX_UPLOAD = Number(document.getElementById("capture-title").dataset.maxUpload);

const draft = loadDraft();
if (!draft) window.location.replace("/new");

const error = document.getElementById("capture-error");
const progress = document.getElementById("progress");
const label = document.getElementById("progress-label");
const bar = document.getElementById("progress-bar");
document.getElementById("game-line").textContent = draft ? describeGame(draft, rulesById()) : "";

async function handle(file) {
  showMessage(error, "");
  progress.hidden = false;
  try {
    const fields = { rules: draft.rules.join(","), variant: draft.variant };
    const detection = await sendPhoto(file, "/api/detect", fields,
      { bar, label, maxUpload: MAX_UPLOAD, reading: "reading the city from the photo…" });
    draft.players[draft.current] = entryFromDetection(detection, draft.players[draft.current]);
    saveDraft(draft);
    window.location.href = "/review";
  } catch (err) {
    progress.hidden = true;
    showMessage(error, `${err.message} You can try another photo or enter the city by hand.`);
  }
}

onPhotoChosen(handle);
