// The node's HTTP API (docs/openapi.yaml): POST /api/NAME with the request's values, and the one
// WebSocket that streams the watched chats' events.

import { withBidiShown } from "./dom.js";

/**
 * A refused request: the HTTP status and the node's error kind and message. The message may quote
 * what a peer wrote (an option, a title) inside one sentence: its reordering characters are written out.
 */
export class ApiError extends Error {
  constructor(status, kind, message) {
    super(withBidiShown(message ?? ""));
    this.status = status;
    this.kind = kind;
  }
}

const listeners = { unauthorized: [] };

// The session's second half (docs/THREAT_MODEL.md, "Web front end"): the cookie alone opens nothing.
// It is kept in this origin's localStorage, which no page of another port can read (cookies, unlike
// storage, go to every port of a host).
const proofKey = "parley-session-proof";

// The login's answer is this page with the proof in a <meta>: keep it before any request is made
// (this module runs before app.js's body), and replace the login address and its history entry.
const handedProof = document.querySelector('meta[name="parley-session-proof"]');
if (handedProof) {
  localStorage.setItem(proofKey, handedProof.content);
  handedProof.remove();
  history.replaceState(null, "", "/");
}

function sessionHeaders() {
  const proof = localStorage.getItem(proofKey);
  return proof ? { Authorization: `Session ${proof}` } : {};
}

/** Ends this browser's session at the node and forgets its proof. */
export async function logOut() {
  try {
    await fetch("/logout", { method: "POST", headers: sessionHeaders(), credentials: "same-origin" });
  } finally {
    localStorage.removeItem(proofKey);
  }
}

/** Called when the node says the session is missing or wrong (401). */
export function onUnauthorized(handler) {
  listeners.unauthorized.push(handler);
}

/** Sends one request; resolves with its result, or rejects with an ApiError. */
export async function call(name, values = {}) {
  let response;
  try {
    response = await fetch(`/api/${encodeURIComponent(name)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...sessionHeaders() },
      body: JSON.stringify(values),
      credentials: "same-origin",
    });
  } catch (error) {
    throw new ApiError(0, "unavailable", "the node does not answer (is it running?)");
  }
  const text = await response.text();
  if (!response.ok) throw refusal(response.status, text);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** The ApiError a refused answer's status and JSON body make (a 401 also shows the login). */
function refusal(status, text) {
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (status === 401) for (const handler of listeners.unauthorized) handler();
  const error = body?.error ?? { kind: "internal", message: `HTTP ${status}` };
  return new ApiError(status, error.kind, error.message);
}

/**
 * Sends one file's bytes to a chat (`POST /api/upload`) as they are, never read whole into the
 * page; `onProgress(sent, total)` follows the upload. Resolves with the file's view.
 */
export function upload(chat, file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `/api/upload?chat=${encodeURIComponent(chat)}&name=${encodeURIComponent(file.name)}`);
    request.setRequestHeader("Content-Type", "application/octet-stream");
    for (const [name, value] of Object.entries(sessionHeaders())) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onload = () => {
      if (request.status === 200) {
        try {
          resolve(JSON.parse(request.responseText));
        } catch {
          reject(new ApiError(request.status, "internal", "the node's answer is not JSON"));
        }
      } else {
        reject(refusal(request.status, request.responseText));
      }
    };
    request.onerror = () => reject(new ApiError(0, "unavailable", "the node does not answer (is it running?)"));
    request.send(file);
  });
}

/**
 * A held file's bytes (`GET /api/files/…` or `/api/pictures/…`) as a Blob. Fetched here rather than
 * linked, since the session's proof goes only in a header: an <img> or a plain link carries the
 * cookie alone, which opens nothing.
 */
export async function fetchBlob(path) {
  let response;
  try {
    response = await fetch(path, { headers: sessionHeaders(), credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "unavailable", "the node does not answer (is it running?)");
  }
  if (!response.ok) throw refusal(response.status, await response.text());
  return response.blob();
}

/**
 * The page's WebSocket. `watch(chat)` streams a chat's events to `onEvent(chat, event)`; the socket
 * reconnects by itself (each watched chat is watched again, with its backlog, which the page merges).
 * A watch here leaves the read marker alone (`marksRead: false`): the page marks what was on screen.
 */
export class WatchSocket {
  constructor({ onEvent, onError, onStatus }) {
    this.onEvent = onEvent;
    this.onError = onError;
    this.onStatus = onStatus ?? (() => {});
    this.watched = new Set();
    this.retryMillis = 500;
    this.socket = null;
    this.closedOnPurpose = false;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // A WebSocket cannot send Authorization: the proof goes as a second subprotocol.
    const proof = localStorage.getItem(proofKey);
    const socket = new WebSocket(`${scheme}://${location.host}/api/ws`, proof ? ["parley", `parley-session.${proof}`] : ["parley"]);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retryMillis = 500;
      this.onStatus("online");
      for (const chat of this.watched) this.send({ watch: { chat, marksRead: false } });
    });
    socket.addEventListener("message", (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.chat && frame.event) this.onEvent(frame.chat, frame.event);
      else if (frame.error) this.onError(frame.chat ?? null, frame.error);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket || this.closedOnPurpose) return;
      this.onStatus("offline");
      // A socket closed by logout or revoke, or refused on reconnecting, tells the page nothing of
      // why: one request does (a 401 shows the login).
      call("status").catch(() => {});
      setTimeout(() => {
        if (!this.closedOnPurpose) this.connect();
      }, this.retryMillis);
      this.retryMillis = Math.min(this.retryMillis * 2, 10_000);
    });
  }

  send(command) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(command));
  }

  watch(chat) {
    this.watched.add(chat);
    this.send({ watch: { chat, marksRead: false } });
  }

  unwatch(chat) {
    this.watched.delete(chat);
    this.send({ unwatch: { chat } });
  }

  close() {
    this.closedOnPurpose = true;
    this.socket?.close();
  }
}
