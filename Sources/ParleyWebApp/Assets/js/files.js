// Files and pictures in a chat (issue 37): attaching (the paperclip, or files dropped on the chat)
// with an upload status line, and "File" messages shown as a picture or a card. A held file's bytes
// come from the node with the session's proof in a header (js/api.js fetchBlob), so a picture is
// shown, and a download saved, from a blob: URL: the thumbnail (a data: URL) until then.

import { call, fetchBlob, upload } from "./api.js";
import { button, el, isolated, linkified } from "./dom.js";

/** How often a file being fetched is asked after. */
const pollMillis = 500;
/** A picture not fetched yet is asked after this many times: its node fetches small ones by itself, a moment after the message. */
const remotePictureRounds = 20;
/** Pictures kept as blob: URLs for this page (re-rendered messages reuse them), the oldest let go past it. */
const maxKeptPictures = 100;

/** "512 bytes", "88 KiB", "1.2 MiB": as the node's own lines say it (MessageText.byteCount). */
export function humanSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${rounded} ${units[unit]}`;
}

const path = (kind, file) => `/api/${kind}/${encodeURIComponent(file.chat)}/${encodeURIComponent(file.id)}`;

// MARK: what the node holds

/** The latest view of each file this page asked after, so a message drawn again shows where its fetch is. */
const latest = new Map();
/** Per file id, the function that redraws its current picture or card with a new view. */
const shown = new Map();
const polling = new Set();

function freshest(file) {
  const known = latest.get(file.id);
  return known && known.heldBytes >= file.heldBytes ? known : file;
}

/**
 * Asks after a file every 500 ms until it is held (or, unless `remoteRounds`, no longer fetched),
 * redrawing what shows it; stops once nothing does.
 */
async function follow(file, remoteRounds = 0) {
  if (polling.has(file.id)) return;
  polling.add(file.id);
  let rounds = 0;
  try {
    while (shown.has(file.id)) {
      await new Promise((resolve) => setTimeout(resolve, pollMillis));
      const redraw = shown.get(file.id);
      if (!redraw) break;
      let view;
      try {
        view = await call("file", { chat: file.chat, file: file.id });
      } catch {
        continue; // the next round asks again
      }
      latest.set(view.id, view);
      shown.get(file.id)?.(view);
      rounds += 1;
      if (view.state === "held" || (view.state === "remote" && rounds >= remoteRounds)) break;
    }
  } finally {
    polling.delete(file.id);
  }
}

/** Registers `redraw` as what shows `file` while `node` is on the page. */
function showing(file, node, redraw) {
  shown.set(file.id, (view) => {
    if (!node.isConnected) {
      shown.delete(file.id);
      return;
    }
    redraw(view);
  });
}

// MARK: pictures

const pictures = new Map(); // file id → Promise of a blob: URL

function pictureURL(file) {
  let url = pictures.get(file.id);
  if (!url) {
    url = fetchBlob(path("pictures", file)).then((blob) => URL.createObjectURL(blob));
    url.catch(() => pictures.delete(file.id));
    pictures.set(file.id, url);
    if (pictures.size > maxKeptPictures) {
      const [oldest, kept] = pictures.entries().next().value;
      pictures.delete(oldest);
      kept.then((old) => URL.revokeObjectURL(old), () => {});
    }
  }
  return url;
}

function thumbnailURL(file) {
  return file.thumbnail ? `data:image/jpeg;base64,${file.thumbnail}` : null;
}

/** The full-size view: the picture (or its thumbnail until it is here) and a close button; Esc closes. */
function openPicture(file, source) {
  const image = el("img", { className: "picture-full", attrs: { alt: file.name, src: source } });
  const dialog = el("dialog", { className: "dialog picture-view", attrs: { "aria-label": `Picture: ${file.name}` } },
    image,
    el("div", { className: "form-actions" },
      el("span", { className: "picture-name" }, isolated(file.name)),
      button("Close", () => dialog.close())));
  dialog.addEventListener("close", () => dialog.remove());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close(); // a click on the backdrop
  });
  document.body.append(dialog);
  dialog.showModal();
}

function pictureBody(file, toast) {
  const image = el("img", {
    className: "picture-image",
    attrs: { alt: file.name, width: file.width, height: file.height, src: thumbnailURL(file), decoding: "async" },
  });
  const status = el("span", { className: "file-status", attrs: { role: "status" } });
  const frame = el("button", {
    className: "picture", title: `Open ${file.name} full size`, attrs: { type: "button" },
    on: { click: () => openPicture(file, image.getAttribute("src") ?? "") },
  }, image);
  const fetchButton = button("Fetch picture", async () => {
    fetchButton.disabled = true;
    try {
      redraw(await call("fileFetch", { chat: file.chat, file: file.id }));
      follow(file);
    } catch (error) {
      fetchButton.disabled = false;
      toast(error.message);
    }
  }, "small");
  const box = el("div", { className: "picture-box" }, frame, status, fetchButton);
  frame.hidden = !image.getAttribute("src");
  const redraw = (view) => {
    latest.set(view.id, view);
    fetchButton.hidden = view.state !== "remote";
    if (view.state === "held") {
      status.textContent = "";
      pictureURL(view).then((url) => {
        image.src = url;
        frame.hidden = false;
      }, (error) => { status.textContent = error.message; });
    } else {
      status.textContent = view.state === "fetching" ? `Fetching… ${Math.floor((100 * view.heldChunks) / Math.max(1, view.chunks))}%` : "";
      if (!image.getAttribute("src")) status.textContent ||= `🖼 ${file.name} (${humanSize(file.size)})`;
    }
  };
  showing(file, box, redraw);
  const now = freshest(file);
  redraw(now);
  if (now.state !== "held") follow(file, remotePictureRounds);
  return box;
}

// MARK: other files

function icon(type) {
  if (type.startsWith("image/")) return "🖼";
  if (type.startsWith("audio/")) return "🎵";
  if (type.startsWith("video/")) return "🎬";
  if (type.startsWith("text/")) return "📝";
  if (type === "application/pdf") return "📕";
  if (/zip|compressed|tar|gzip/.test(type)) return "🗜";
  return "📄";
}

/** Saves a held file: its bytes fetched with the session, then handed to the browser under its name. */
async function save(file, toast) {
  try {
    const url = URL.createObjectURL(await fetchBlob(path("files", file)));
    const link = el("a", { attrs: { href: url, download: file.name, hidden: true } });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    toast(error.message);
  }
}

function cardBody(file, toast) {
  const name = isolated(file.name, "file-name");
  const details = el("span", { className: "file-details" });
  const action = el("div", { className: "file-action" });
  const card = el("div", { className: "file-card" },
    el("span", { className: "file-icon", text: icon(file.type), attrs: { "aria-hidden": "true" } }),
    el("div", { className: "file-text" }, name, details),
    action);
  const redraw = (view) => {
    latest.set(view.id, view);
    details.textContent = `${humanSize(view.size)} · ${view.type}`;
    if (view.state === "held") {
      // A real link (its address says what it is), saved through fetchBlob: the link alone has no proof.
      const link = el("a", {
        className: "button-link", text: "Download",
        attrs: { href: path("files", view), download: view.name, "aria-label": `Download ${view.name}` },
        on: { click: (event) => { event.preventDefault(); save(view, toast); } },
      });
      action.replaceChildren(link);
    } else if (view.state === "fetching") {
      const percent = Math.floor((100 * view.heldChunks) / Math.max(1, view.chunks));
      action.replaceChildren(
        el("progress", { attrs: { max: view.chunks, value: view.heldChunks, "aria-label": `Fetching ${view.name}` } }),
        el("span", { className: "file-status", attrs: { role: "status" }, text: `${percent}%` }));
    } else {
      const start = button("Download", async () => {
        start.disabled = true;
        try {
          const fetching = await call("fileFetch", { chat: view.chat, file: view.id });
          redraw(fetching.state === "remote" ? { ...fetching, state: "fetching" } : fetching);
          follow(view);
        } catch (error) {
          start.disabled = false;
          toast(error.message);
        }
      });
      start.setAttribute("aria-label", `Download ${view.name}`);
      action.replaceChildren(start);
    }
  };
  showing(file, card, redraw);
  const now = freshest(file);
  redraw(now);
  if (now.state === "fetching") follow(file);
  return card;
}

/**
 * A "File" message's body: its picture or card, and its caption (the node's rendering of it, from
 * the message's line "📎 name (size) — caption", so mentions read as names).
 */
export function fileBody(view, { toast }) {
  const file = view.file;
  const shownAsPicture = file.picture && file.type.startsWith("image/") && file.type !== "image/svg+xml";
  const body = el("div", { className: "file-body" }, shownAsPicture ? pictureBody(file, toast) : cardBody(file, toast));
  if (file.caption) {
    const after = view.text.indexOf(") — ", view.text.indexOf(file.name) + file.name.length);
    const caption = after >= 0 ? view.text.slice(after + 4) : file.caption;
    body.append(el("p", { className: "body caption", attrs: { dir: "auto" } }, linkified(caption)));
  }
  return body;
}

// MARK: attaching

/**
 * Wires the paperclip (`attach`, opening the hidden `input`) and dropping files onto `zone` (with
 * `hint` shown while files are dragged over it) to upload each to the chat `chat()` names, one after
 * another, saying how far it got in `status`.
 */
export function attachControls({ attach, input, zone, hint, status, chat, toast }) {
  let queue = Promise.resolve();
  const send = (files) => {
    const target = chat();
    if (!target || files.length === 0) return;
    const list = [...files];
    queue = queue.then(async () => {
      for (const [index, file] of list.entries()) {
        const counted = list.length > 1 ? ` (${index + 1} of ${list.length})` : "";
        status.hidden = false;
        status.textContent = `Sending ${file.name}${counted}…`;
        try {
          await upload(target, file, (sent, total) => {
            status.textContent = `Sending ${file.name}${counted}… ${Math.floor((100 * sent) / Math.max(1, total))}%`;
          });
          status.textContent = `Sent ${file.name}.`;
        } catch (error) {
          status.textContent = `${file.name} was not sent: ${error.message}`;
          toast(error.message);
        }
      }
      setTimeout(() => {
        if (status.textContent.startsWith("Sent ")) status.hidden = true;
      }, 4000);
    });
  };
  attach.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    send(input.files);
    input.value = "";
  });
  // dragenter and dragleave fire for every child crossed: counted, so the hint stays while inside.
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  zone.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth += 1;
    hint.hidden = false;
  });
  zone.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  zone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) hint.hidden = true;
  });
  zone.addEventListener("drop", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    hint.hidden = true;
    send(event.dataTransfer.files);
  });
}
