import { loadDraft } from "./common.js";

const draft = loadDraft();
if (draft && draft.players && draft.players.length) {
  document.getElementById("resume").hidden = false;
}
