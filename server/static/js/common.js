// Shared helpers: the JSON API, the game in progress (kept in localStorage so a phone that
// drops the tab while the camera is open loses nothing), rule names and small DOM helpers.

export async function api(path, options = {}) {
  const init = { ...options };
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(options.json);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error("Cannot reach the citycam server. Check the Wi-Fi and try again.");
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Error((body && body.error) || `The server answered ${response.status}.`);
  }
  return body;
}

const DRAFT_KEY = "citycam.draft";

export function loadDraft() {
  try {
    return JSON.parse(localStorage.getItem(DRAFT_KEY));
  } catch (err) {
    return null;
  }
}

export function saveDraft(draft) {
  localStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
}

export function clearDraft() {
  localStorage.removeItem(DRAFT_KEY);
}

export function newUid() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function rulesById() {
  const node = document.getElementById("rules-data");
  const rules = node ? JSON.parse(node.textContent) : [];
  return Object.fromEntries(rules.map((r) => [r.id, r]));
}

export function describeGame(draftOrGame, rules) {
  const variant = draftOrGame.variant === "small-city" ? "Small City" : "Standard";
  const names = draftOrGame.rules.map((id) => (rules[id] ? rules[id].name : id));
  return `${variant} · ${names.join(", ") || "no special rules"}`;
}

// el("p", {class: "x", text: "hi"}, child, ...): build a DOM element.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

export function showMessage(node, text) {
  node.textContent = text || "";
  node.hidden = !text;
}
