// A photo's Exif carried over to the smaller JPEG the phone makes of it. Phones record the
// lens in the Exif (its 35 mm equivalent focal length), and the server models the camera
// with it: a photo taken zoomed in sees the table at half the angle of the main lens. A
// canvas re-encodes a photo without any Exif, so the original's segment is put back, its
// Orientation set upright (the canvas has drawn the pixels turned already).

const SOI = 0xffd8;
const APP1 = 0xffe1;
const START_OF_SCAN = 0xffda;
const ORIENTATION = 0x0112;
const HEAD_BYTES = 128 * 1024; // an Exif segment is at most 64 kB and comes before the image data

// The Exif segment (marker to its end) of the JPEG `file`, as bytes, or null.
export async function exifSegment(file) {
  const view = new DataView(await file.slice(0, HEAD_BYTES).arrayBuffer());
  if (view.byteLength < 4 || view.getUint16(0) !== SOI) return null;
  let at = 2;
  while (at + 4 <= view.byteLength) {
    const marker = view.getUint16(at);
    if ((marker & 0xff00) !== 0xff00 || marker === START_OF_SCAN) return null;
    const end = at + 2 + view.getUint16(at + 2);
    if (marker === APP1 && end <= view.byteLength && isExif(view, at + 4)) {
      return new Uint8Array(view.buffer.slice(at, end));
    }
    at = end;
  }
  return null;
}

function isExif(view, at) {
  return at + 6 <= view.byteLength && view.getUint32(at) === 0x45786966 && view.getUint16(at + 4) === 0; // "Exif\0\0"
}

// `segment` (from exifSegment) with its Orientation, if it records one, set to 1 (upright).
export function upright(segment) {
  const out = segment.slice();
  const view = new DataView(out.buffer);
  const tiff = 10; // marker, length, "Exif\0\0"
  if (out.length < tiff + 8) return out;
  const little = view.getUint16(tiff) === 0x4949; // "II"
  const first = tiff + view.getUint32(tiff + 4, little);
  if (first + 2 > out.length) return out;
  const count = view.getUint16(first, little);
  for (let k = 0; k < count; k += 1) {
    const entry = first + 2 + 12 * k;
    if (entry + 12 > out.length) break;
    if (view.getUint16(entry, little) === ORIENTATION) view.setUint16(entry + 8, 1, little);
  }
  return out;
}

// The JPEG `blob` with `segment` put in right after its start-of-image marker.
export async function withSegment(blob, segment) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (bytes.length < 2 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return blob;
  return new Blob([bytes.subarray(0, 2), segment, bytes.subarray(2)], { type: "image/jpeg" });
}
