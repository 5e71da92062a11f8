// Edits, deletions, pins, threads and mentions in the page (PROTOCOL.md §13d). The node decides what
// each message shows (its latest edit, its tombstone, its pin); this module draws what the views say
// and sends the requests. Every peer-written text goes in as text (dom.js), bidi-isolated.

import { call } from "./api.js";
import { confirmAction } from "./confirm.js";
import { button, clockTime, el, isolated, linkified, nameRun } from "./dom.js";

/** A message's text with each mention of a member highlighted (and this user's more so). */
export function mentionedBody(view, me) {
  const names = (view.mentions ?? []).map((member) => ({ member, run: `@${member.name ?? member.id.slice(0, 8)}` }));
  if (names.length === 0 || view.kind === "link") return linkified(view.text);
  const fragment = document.createDocumentFragment();
  let rest = view.text;
  while (rest.length > 0) {
    let next = null;
    for (const candidate of names) {
      const at = rest.indexOf(candidate.run);
      if (at >= 0 && (next === null || at < next.at || (at === next.at && candidate.run.length > next.run.length))) {
        next = { ...candidate, at };
      }
    }
    if (!next) break;
    fragment.append(document.createTextNode(rest.slice(0, next.at)));
    fragment.append(el("mark", { className: `mention${next.member.id === me ? " me" : ""}` }, isolated(next.run)));
    rest = rest.slice(next.at + next.run.length);
  }
  fragment.append(document.createTextNode(rest));
  return fragment;
}

/** "Message deleted", naming the chat's creator when it deleted someone else's. */
export function tombstone(view) {
  const byOther = view.deletedBy && view.deletedBy.id !== view.author;
  return el("p", { className: "body deleted" }, "Message deleted",
    ...(byOther ? [" by ", nameRun(view.deletedBy.name, view.deletedBy.id)] : []));
}

/** The marks after a message's time: "edited" (opens its versions) and who pinned it. */
export function amendmentMarks(view, chat, toast) {
  const marks = [];
  if (view.edits > 0) {
    marks.push(button("edited", () => showVersions(view, chat, toast), "mark edited"));
  }
  if (view.pinnedBy) marks.push(el("span", { className: "mark pinned" }, "📌 ", nameRun(view.pinnedBy.name, view.pinnedBy.id)));
  return marks;
}

/**
 * The buttons a message offers: edit (own Text), delete for everyone (own, or any for the chat's
 * creator), delete for me, pin or unpin, and its thread.
 */
export function amendmentButtons(view, { chat, me, toast, edit, thread }) {
  const own = view.author === me;
  const buttons = [];
  if (own && view.tag === "Text" && !view.sealed) buttons.push(button("Edit", () => edit(view)));
  if (own || chat.creator === me) buttons.push(button("Delete", () => deleteForEveryone(view, chat, toast)));
  buttons.push(button("Hide", () => deleteForMe(view, chat, toast)));
  buttons.push(button(view.pinnedBy ? "Unpin" : "Pin", () => pin(view, chat, !view.pinnedBy, toast)));
  buttons.push(button(view.replyCount > 0 ? `Thread (${view.replyCount})` : "Thread", () => thread(view)));
  return buttons;
}

/** Replaces a message's body with an input holding its text: Enter saves, Escape cancels. */
export function editInPlace(article, view, chat, toast) {
  const body = article.querySelector(".body");
  if (!body) return;
  const input = el("textarea", { className: "edit-input", text: view.text, attrs: { "aria-label": "New text", rows: 2 } });
  const cancel = () => input.replaceWith(body);
  input.addEventListener("keydown", async (event) => {
    if (event.key === "Escape") return cancel();
    if (event.key !== "Enter" || event.shiftKey) return;
    event.preventDefault();
    const text = input.value.trim();
    if (!text || text === view.text) return cancel();
    try {
      await call("edit", { chat: chat.id, message: view.id, text });
      cancel(); // the watch brings the edited message back
    } catch (error) {
      toast(error.message);
    }
  });
  body.replaceWith(input);
  input.focus();
}

async function deleteForEveryone(view, chat, toast) {
  const confirmed = await confirmAction({
    title: ["Delete this message for everyone?"],
    explanation: ["Every member's node stops showing it and shows “Message deleted” instead. ",
      "Someone who already read it, or whose node was changed to keep it, may still have it."],
    confirmLabel: "Delete for everyone",
  });
  if (!confirmed) return;
  try {
    await call("delete", { chat: chat.id, message: view.id });
  } catch (error) {
    toast(error.message);
  }
}

async function deleteForMe(view, chat, toast) {
  try {
    await call("deleteForMe", { chat: chat.id, message: view.id });
    document.querySelector(`.item[data-id="${CSS.escape(view.id)}"]`)?.remove();
    toast("Hidden from your views on this device; nothing was sent.");
  } catch (error) {
    toast(error.message);
  }
}

async function pin(view, chat, pinned, toast) {
  try {
    await call("pin", { chat: chat.id, message: view.id, pinned });
  } catch (error) {
    toast(error.message);
  }
}

async function showVersions(view, chat, toast) {
  let history;
  try {
    history = await call("edits", { chat: chat.id, message: view.id });
  } catch (error) {
    return toast(error.message);
  }
  const dialog = el("dialog", { className: "dialog versions", attrs: { "aria-label": "Versions of the message" } },
    el("h2", { text: "Versions" }),
    el("ol", {}, ...history.versions.map((version, index) =>
      el("li", {}, el("time", { text: clockTime(version.timestampMillis) }), index === 0 ? " original: " : " edit: ",
        isolated(version.text)))),
    el("div", { className: "form-actions" }, button("Close", () => dialog.close())));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

/** The bar above the messages: the latest pin, how many more, a click jumps to the pinned message. */
export class PinsBar {
  constructor(container, chat, jump) {
    this.container = container;
    this.chat = chat;
    this.jump = jump;
    this.refreshing = null;
  }

  async refresh() {
    if (this.refreshing) return this.refreshing;
    this.refreshing = (async () => {
      try {
        const pins = await call("pins", { chat: this.chat.id });
        this.render(pins);
      } catch {
        // Shown again on the next change.
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  render(pins) {
    this.container.hidden = pins.length === 0;
    if (pins.length === 0) return this.container.replaceChildren();
    const [latest] = pins;
    const text = latest.message.kind === "poll" ? "a poll" : latest.message.text;
    this.container.replaceChildren(
      el("button", {
        className: "pin-jump", attrs: { type: "button", "aria-label": "Go to the pinned message" },
        on: { click: () => this.jump(latest.message.id) },
      }, "📌 ", isolated(text.length > 100 ? `${text.slice(0, 100)}…` : text, "pin-text")),
      el("span", { className: "pin-by" }, " — pinned by ", nameRun(latest.pinnedBy.name, latest.pinnedBy.id),
        pins.length > 1 ? ` · ${pins.length - 1} more` : ""));
  }
}

/** A message's thread in a side dialog: the message, its replies, and a box to reply in the thread. */
export async function openThread(view, { chat, me, toast }) {
  let thread;
  try {
    thread = await call("thread", { chat: chat.id, message: view.id });
  } catch (error) {
    return toast(error.message);
  }
  const line = (message) => el("li", { className: "thread-item" },
    el("span", { className: "author" }, message.author === me ? "You" : nameRun(message.authorName, message.author)),
    " ", el("time", { text: clockTime(message.timestampMillis) }), el("br"),
    message.kind === "deleted" ? tombstone(message) : el("p", { className: "body", attrs: { dir: "auto" } }, mentionedBody(message, me)));
  const input = el("textarea", { attrs: { rows: 2, "aria-label": "Reply in the thread", placeholder: "Reply in the thread" } });
  const dialog = el("dialog", { className: "dialog thread-pane", attrs: { "aria-label": "Thread" } },
    el("h2", { text: "Thread" }),
    el("ol", { className: "thread-list" }, line(thread.root), ...thread.replies.map(line)),
    input,
    el("div", { className: "form-actions" },
      button("Close", () => dialog.close()),
      button("Reply", async () => {
        const text = input.value.trim();
        if (!text) return;
        try {
          await call("send", { chat: chat.id, text, tag: null, refs: [view.id] });
          dialog.close();
        } catch (error) {
          toast(error.message);
        }
      }, "primary")));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  input.focus();
}
