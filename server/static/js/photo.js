// Photos from the phone: shrunk on the phone before they go up, uploaded with visible progress.
import { exifSegment, upright, withSegment } from "./exif.js";

const MAX_SIDE = 2000;
const JPEG_QUALITY = 0.9;

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

// Shrink the chosen `file` and POST it to `url` (multipart field "photo", with the other
// `fields`), saying in `label` what is happening and showing the upload's progress on the
// <progress> `bar`, then `reading` while the server works. Resolves to the JSON answer of a
// 2xx reply; rejects with the reason (an empty file, one over `maxUpload` bytes once shrunk,
// the server's answer).
export async function sendPhoto(file, url, fields, { bar, label, maxUpload, reading }) {
  if (file.size === 0) throw new Error("That photo is empty. Take or choose it again.");
  label.textContent = "Preparing the photo…";
  bar.value = 0;
  const photo = await shrink(file);
  if (photo.size > maxUpload) {
    throw new Error(`That photo is too large (${Math.round(photo.size / 1e6)} MB; the limit is ${Math.round(maxUpload / 1e6)} MB).`);
  }
  label.textContent = `Uploading the photo (${kilobytes(photo)} kB)…`;
  return upload(url, photo, fields, bar, label, reading);
}

function upload(url, blob, fields, bar, label, reading) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("photo", blob, "photo.jpg");
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total);
    });
    xhr.upload.addEventListener("load", () => {
      label.textContent = `Uploaded (${kilobytes(blob)} kB); ${reading}`;
      bar.removeAttribute("value");
    });
    xhr.addEventListener("load", () => {
      if (xhr.status >= 200 && xhr.status < 300 && xhr.response) resolve(xhr.response);
      else reject(new Error((xhr.response && xhr.response.error) || `The server answered ${xhr.status}.`));
    });
    xhr.addEventListener("error", () => reject(new Error("The upload failed. Check the Wi-Fi and try again.")));
    xhr.send(form);
  });
}

// Call `handle(file)` with each photo taken or chosen (inputs #camera-input and #gallery-input),
// emptying the input so that the same photo can be chosen again.
export function onPhotoChosen(handle) {
  for (const id of ["camera-input", "gallery-input"]) {
    const input = document.getElementById(id);
    const take = () => {
      const file = input.files[0];
      input.value = "";
      if (file) handle(file);
    };
    input.addEventListener("change", take);
    if (input.files.length) take();  // chosen before this script ran, or kept on "back"
  }
}
