// Notifications of new messages while the page is hidden (another tab, a minimised window), through
// the browser's Notification API. Off until the user turns them on with the "Notify me" toggle: the
// browser's permission is asked then, on that click, never when the page loads. Muted chats never
// notify. A notification's title and body are plain text by the API's definition; the names and
// the message in them have their reordering characters written out, since they share one line.

import { displayName, withBidiShown } from "./dom.js";

const storageKey = "parley-notify";
/** How much of a message a notification quotes, in characters. */
const maxBody = 140;

/** Whether this browser has notifications at all. */
function supported() {
  return typeof window.Notification === "function";
}

export class Notifier {
  /**
   * `toggle`: the "Notify me" button; `me`: this user's id; `onOpen(chat)`: a click on a
   * notification opens its chat; `toast(text)`: says why notifications cannot be turned on.
   */
  constructor({ toggle, me, onOpen, toast }) {
    this.toggle = toggle;
    this.me = me;
    this.onOpen = onOpen;
    this.toast = toast;
    this.known = null; // chat id → { local, unread } of its latest message, from the previous chat list
    if (!supported()) return;
    toggle.hidden = false;
    toggle.addEventListener("click", () => this.flip());
    this.show();
  }

  /** On, in this browser, with the permission granted. */
  get enabled() {
    return supported() && localStorage.getItem(storageKey) === "on" && Notification.permission === "granted";
  }

  show() {
    const on = this.enabled;
    this.toggle.setAttribute("aria-pressed", on ? "true" : "false");
    this.toggle.textContent = on ? "Notifying" : "Notify me";
    this.toggle.title = on ? "New messages are notified while this page is hidden; click to stop" : "Notify new messages while this page is hidden";
  }

  /** The toggle's click (a user gesture: the one moment the permission may be asked). */
  async flip() {
    if (this.enabled) {
      localStorage.removeItem(storageKey);
      this.show();
      return;
    }
    let permission = Notification.permission;
    if (permission === "default") permission = await Notification.requestPermission();
    if (permission === "granted") {
      localStorage.setItem(storageKey, "on");
    } else {
      this.toast("Notifications are blocked for this page: allow them in the browser's site settings.");
    }
    this.show();
  }

  /**
   * A new chat list: each chat whose latest message is newer than in the previous list, written by
   * someone else, in a chat not muted, is notified while the page is hidden. The first list only
   * sets what is known: nothing that was there before the page loaded is news.
   */
  noteChats(chats) {
    const previous = this.known;
    this.known = new Map(chats.map((chat) => [chat.id, { local: chat.lastMessage?.localNumber ?? 0, unread: chat.unread ?? 0 }]));
    if (!previous || !this.enabled || document.visibilityState !== "hidden") return;
    for (const chat of chats) {
      const last = chat.lastMessage;
      const before = previous.get(chat.id) ?? { local: 0, unread: 0 };
      if (!last || chat.muted || last.author === this.me || last.localNumber <= before.local) continue;
      this.notify(chat, last, Math.max(1, (chat.unread ?? 0) - before.unread));
    }
  }

  notify(chat, last, fresh) {
    const author = withBidiShown(displayName(last.authorName, last.author));
    const text = withBidiShown(last.text);
    const quoted = [...text].length > maxBody ? `${[...text].slice(0, maxBody - 1).join("")}…` : text;
    const said = last.mentionsMe ? `${author} mentioned you: ${quoted}` : `${author}: ${quoted}`;
    const body = fresh > 1 ? `${fresh} new messages; ${said}` : said;
    const title = last.mentionsMe ? `@ ${withBidiShown(chat.name)}` : withBidiShown(chat.name);
    const notification = new Notification(title, { body, tag: chat.id });
    notification.onclick = () => {
      window.focus();
      this.onOpen(chat);
      notification.close();
    };
  }
}
