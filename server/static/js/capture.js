// Capture: take or choose a photo, shrink it on the phone, upload it with visible progress,
// and keep the detection as the current player's city before moving on to the review.
import { describeGame, loadDraft, rulesById, saveDraft, showMessage } from "./common.js";
import { entryFromDetection } from "./city.js";
import { exifSegment, upright, withSegment } from "./exif.js";

const MAX_SIDE = 2000;
const JPEG_QUALITY = 0.9;
const MAX_UPLOAD = Number(document.getElementById("capture-title").dataset.maxUpload);

const draft = loadDraft();
if (!draft) window.location.replace("/new");

const error = document.getElementById("capture-error");
const progress = document.getElementById("progress");
const label = document.getElementById("progress-label");
const bar = document.getElementById("progress-bar");
document.getElementById("game-line").textContent = draft ? describeGame(draft, rulesById()) : "";

// The photo at most MAX_SIDE pixels on its long side, as JPEG, turned upright, with the
// original's Exif (the lens it records) where it has one. Photos the browser cannot decode
// (HEIC on most phones but iPhones) go up as they are.
async function shrink(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (err) {
    return file;
  }
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  if (scale === 1 && file.type === "image/jpeg") return file;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", JPEG_QUALITY));
  if (!blob) return file;
  const segment = await exifSegment(file);
  return segment ? withSegment(blob, upright(segment)) : blob;
}

function kilobytes(blob) {
  return Math.round(blob.size / 1000);
}

function upload(blob) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("photo", blob, "photo.jpg");
    form.append("rules", draft.rules.join(","));
    form.append("variant", draft.variant);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/detect");
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total);
    });
    xhr.upload.addEventListener("load", () => {
      label.textContent = `Uploaded (${kilobytes(blob)} kB); reading the city from the photo…`;
      bar.removeAttribute("value");
    });
    xhr.addEventListener("load", () => {
      if (xhr.status === 200 && xhr.response) resolve(xhr.response);
      else reject(new Error((xhr.response && xhr.response.error) || `The server answered ${xhr.status}.`));
    });
    xhr.addEventListener("error", () => reject(new Error("The upload failed. Check the Wi-Fi and try again.")));
    xhr.send(form);
  });
}

async function handle(input) {
  const file = input.files[0];
  input.value = "";
  if (!file) return;
  showMessage(error, "");
  if (file.size === 0) {
    showMessage(error, "That photo is empty. Take or choose it again.");
    return;
  }
  progress.hidden = false;
  label.textContent = "Preparing the photo…";
  bar.value = 0;
  try {
    const photo = await shrink(file);
    if (photo.size > MAX_UPLOAD) {
      throw new Error(`That photo is too large (${Math.round(photo.size / 1e6)} MB; the limit is ${Math.round(MAX_UPLOAD / 1e6)} MB).`);
    }
    label.textContent = `Uploading the photo (${kilobytes(photo)} kB)…`;
    const detection = await upload(photo);
    draft.players[draft.current] = entryFromDetection(detection, draft.players[draft.current]);
    saveDraft(draft);
    window.location.href = "/review";
  } catch (err) {
    progress.hidden = true;
    showMessage(error, `${err.message} You can try another photo or enter the city by hand.`);
  }
}

for (const id of ["camera-input", "gallery-input"]) {
  const input = document.getElementById(id);
  input.addEventListener("change", () => handle(input));
  if (input.files.length) handle(input);  // chosen before this script ran, or kept on "back"
}
