// The page: wires the chat list, the open chat's timeline, the member pane and the dialogs to the
// node's API and its WebSocket. Everything a peer wrote is put in as text (see js/dom.js).

import { call, logOut, onUnauthorized, WatchSocket } from "./js/api.js";
import { newChatForm, renderChatList, tabTitle } from "./js/chats.js";
import { contactsView } from "./js/contacts.js";
import { button, displayName, el, isolated, joined, nameRun, withBidiShown } from "./js/dom.js";
import { forkBanner } from "./js/forks.js";
import { renderMembers } from "./js/members.js";
import { Timeline } from "./js/messages.js";
import { PinsBar } from "./js/amendments.js";
import { Notifier } from "./js/notify.js";
import { newPollForm, tickCountdowns } from "./js/polls.js";
import { themeToggle } from "./js/theme.js";
import { searchBox } from "./js/search.js";
import { attachControls } from "./js/files.js";

const $ = (id) => document.getElementById(id);
const state = { me: null, chats: [], invites: [], contacts: [], current: null, timeline: null, pins: null, reply: null, typingSentAt: 0, socket: null, notifier: null };

// MARK: small pieces of UI

let toastTimer = null;
function toast(text) {
  const box = $("toast");
  // A live-connection error frame's message, like an ApiError's, may quote a peer's text in its sentence.
  box.textContent = withBidiShown(text);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

function openDialog(...content) {
  const dialog = $("dialog");
  dialog.replaceChildren(...content);
  if (!dialog.open) dialog.showModal();
}

function closeDialog() {
  $("dialog").close();
}

function showLogin() {
  $("app").hidden = true;
  $("login").hidden = false;
  state.socket?.close();
}

onUnauthorized(showLogin);
themeToggle($("theme"));

async function logOutHere() {
  state.socket?.close();
  await logOut().catch(() => {});
  $("app").hidden = true;
  $("logged-out").hidden = false;
}

// MARK: chats

/** `chats`: the chat list's answer when the caller already asked for it (the first screen asks early). */
async function refreshChats(chats = null) {
  try {
    state.chats = await (chats ?? call("chatList"));
  } catch (error) {
    if (error.status !== 401) toast(error.message);
    return;
  }
  state.notifier?.noteChats(state.chats);
  const current = state.current && state.chats.find((chat) => chat.id === state.current.id);
  if (current) {
    state.current = current;
    if (state.timeline) state.timeline.chat = current;
    renderChatHeader(current);
  }
  renderList();
}

function renderList() {
  document.title = tabTitle(state.chats);
  renderChatList($("chat-list"), state.chats, {
    current: state.current?.id, me: state.me, onOpen: openChat, invites: state.invites, toast,
    onInviteAnswered: async () => {
      await refreshInvites();
      await refreshChats();
    },
  });
}

let chatsRefresh = null;
function refreshChatsSoon() {
  clearTimeout(chatsRefresh);
  chatsRefresh = setTimeout(refreshChats, 300);
}

async function refreshContacts() {
  try {
    state.contacts = await call("contactsList");
  } catch {
    state.contacts = [];
  }
}

/** Invites waiting for an answer: at the top of the chat list, and counted on the Contacts button. */
async function refreshInvites() {
  let invites;
  try {
    invites = await call("invites");
  } catch {
    return; // shown again on the next refresh
  }
  const changed = invites.map((invite) => invite.id).join() !== state.invites.map((invite) => invite.id).join();
  state.invites = invites;
  const badge = $("invites-badge");
  badge.hidden = invites.length === 0;
  badge.textContent = String(invites.length);
  if (changed) renderList();
}

function renderChatHeader(chat) {
  $("chat-title").replaceChildren(isolated(chat.name));
  const others = chat.members.filter((member) => member.id !== state.me).map((member) => nameRun(member.name, member.id));
  $("chat-subtitle").replaceChildren(...(chat.kind === "direct" ? ["Direct chat"]
    : [`${chat.members.length} members: `, ...(others.length > 0 ? joined(others) : ["just you"])]));
  const mute = $("mute");
  mute.setAttribute("aria-pressed", chat.muted ? "true" : "false");
  mute.textContent = chat.muted ? "Muted" : "Mute";
  mute.title = chat.muted ? "Muted on this device: no notifications; click to unmute" : "Mute on this device: no notifications, not counted in the tab's title";
  // Members that signed two histories: named above the messages for as long as the chat is open.
  const banner = forkBanner(chat);
  $("fork-banner").hidden = !banner;
  $("fork-banner").replaceChildren(...(banner ?? []));
}

function openChat(chat) {
  if (state.current) {
    state.socket.unwatch(state.current.id);
    stopTyping();
  }
  state.timeline?.close();
  state.current = chat;
  setReply(null);
  $("typing").textContent = "";
  $("no-chat").hidden = true;
  $("chat").hidden = false;
  $("app").classList.add("chat-open");
  renderChatHeader(chat);
  state.timeline = new Timeline({
    container: $("messages"), chat, me: state.me,
    actions: { reply: setReply, note: openNote, receipts: openReceipts, toast, read: (upTo) => markRead(chat.id, upTo) },
  });
  state.pins = new PinsBar($("pins-bar"), chat, (id) => {
    const item = state.timeline?.items.get(id);
    if (item) item.node.scrollIntoView({ block: "center" });
    else toast("The pinned message is further up: scroll up to load it.");
  });
  state.pins.refresh();
  // The watch streams the latest messages (back to the first unread, up to 500) and every one after;
  // the page, not the stream, says what was read: what was on screen (Timeline).
  state.socket.watch(chat.id);
  renderList();
  if (!$("members-pane").hidden) showMembers();
  // Placed once the backlog is in: at the first unread message, or the latest. The timeline is
  // taken now: if another chat is open by the time the timer fires, it does nothing.
  const timeline = state.timeline;
  const fresh = call("chatList").then((chats) => chats.find((listed) => listed.id === chat.id) ?? null, () => null);
  setTimeout(async () => {
    const view = await fresh;
    if (timeline === state.timeline) timeline.settle(view);
  }, 300);
  $("composer-text").focus();
}

/** Mutes or unmutes the open chat, on this device only (the node keeps it; nothing is sent). */
async function toggleMute() {
  const chat = state.current;
  if (!chat) return;
  try {
    const changed = await call("chatMute", { chat: chat.id, muted: !chat.muted });
    const index = state.chats.findIndex((listed) => listed.id === changed.id);
    if (index >= 0) state.chats[index] = changed;
    if (state.current?.id === changed.id) {
      state.current = changed;
      if (state.timeline) state.timeline.chat = changed;
      renderChatHeader(changed);
    }
    renderList();
  } catch (error) {
    if (error.status !== 401) toast(error.message);
  }
}

// Read receipts go out in one request for a burst of scrolling: the highest marker seen in 300 ms.
const pendingReads = new Map();
function markRead(chat, upTo) {
  const waiting = pendingReads.get(chat);
  if (waiting) {
    waiting.upTo = Math.max(waiting.upTo, upTo);
    return;
  }
  pendingReads.set(chat, { upTo });
  setTimeout(async () => {
    const { upTo: marker } = pendingReads.get(chat);
    pendingReads.delete(chat);
    try {
      const read = await call("read", { chat, upTo: marker });
      const listed = state.chats.find((candidate) => candidate.id === chat);
      if (listed) listed.unread = read.unread;
      renderList();
    } catch (error) {
      if (error.status !== 401) toast(error.message);
    }
  }, 300);
}

function closeChat() {
  if (state.current) state.socket.unwatch(state.current.id);
  stopTyping();
  state.timeline?.close();
  state.current = null;
  state.timeline = null;
  $("chat").hidden = true;
  $("no-chat").hidden = false;
  $("app").classList.remove("chat-open");
  $("members-pane").hidden = true;
  refreshChats();
}

// MARK: the live stream

function onEvent(chat, event) {
  if (!state.timeline || chat !== state.current?.id) return;
  // A new message or poll changes the chat list (last activity, preview); a vote does not.
  const listChanges = Boolean(event.message) || Boolean(event.poll && !state.timeline.items.has(event.poll.id));
  if (event.message) {
    // A pin, an unpin or a deletion changes the pinned bar: the message's pin differs from what was shown.
    const shown = state.timeline.items.get(event.message.id)?.view;
    const pinChanged = Boolean(event.message.pinnedBy) !== Boolean(shown?.pinnedBy) || event.message.kind === "deleted";
    state.timeline.upsertMessage(event.message);
    if (pinChanged) state.pins?.refresh();
  }
  if (event.poll) state.timeline.upsertPoll(event.poll);
  if (event.reactions) state.timeline.applyReactions(event.reactions.message, event.reactions.groups);
  if (event.typing) {
    const names = event.typing;
    $("typing").replaceChildren(...(names.length === 0 ? []
      : [...joined(names.map((name) => isolated(name, "name"))), ` ${names.length === 1 ? "is" : "are"} typing…`]));
  }
  if (listChanges) refreshChatsSoon();
}

function onSocketError(chat, error) {
  toast(chat ? `${error.message}` : `The live connection refused a command: ${error.message}`);
}

function onSocketStatus(status) {
  const badge = $("connection");
  badge.textContent = status === "online" ? "live" : "reconnecting…";
  badge.classList.toggle("offline", status !== "online");
}

// MARK: composing

function setReply(view) {
  state.reply = view;
  const preview = $("reply-preview");
  preview.hidden = !view;
  if (!view) {
    preview.replaceChildren();
    return;
  }
  const author = view.author === state.me ? "yourself" : nameRun(view.authorName, view.author);
  preview.replaceChildren(
    el("span", { className: "reply-label" }, "Replying to ", author, ": "),
    isolated(view.text.length > 100 ? `${view.text.slice(0, 100)}…` : view.text, "reply-text"),
    button("✕", () => setReply(null), "small"));
  $("composer-text").focus();
}

async function sendMessage(event) {
  event.preventDefault();
  const input = $("composer-text");
  const text = input.value.trim();
  if (!text || !state.current) return;
  const values = { chat: state.current.id, text, tag: null, refs: state.reply ? [state.reply.id] : [] };
  try {
    const sent = await call("send", values);
    input.value = "";
    setReply(null);
    stopTyping();
    state.timeline?.upsertMessage(sent);
    state.timeline?.scrollToBottom();
  } catch (error) {
    toast(error.message);
  }
}

/** Tells the members this user is typing, at most every 3 s (the indicator lasts a few seconds). */
function typing() {
  if (!state.current || !$("composer-text").value) return;
  const now = Date.now();
  if (now - state.typingSentAt < 3000) return;
  state.typingSentAt = now;
  call("typing", { chat: state.current.id, active: true }).catch(() => {});
}

function stopTyping() {
  if (!state.current || state.typingSentAt === 0) return;
  state.typingSentAt = 0;
  call("typing", { chat: state.current.id, active: false }).catch(() => {});
}

// MARK: dialogs

async function openNote(view) {
  const area = el("textarea", { attrs: { rows: "4", maxlength: "4096", "aria-label": "Note" } });
  const status = el("p", { className: "hint" });
  openDialog(el("h2", { text: "Note" }),
    el("p", { className: "private", text: "🔒 Private to this device: a note is never sent to anyone." }),
    el("blockquote", { className: "quote", text: view.text.length > 200 ? `${view.text.slice(0, 200)}…` : view.text, attrs: { dir: "auto" } }),
    area, status,
    el("div", { className: "form-actions" },
      button("Close", closeDialog),
      button("Save", async () => {
        try {
          await call("localSet", { message: view.id, key: "note", value: area.value });
          status.textContent = "Saved on this device.";
        } catch (error) {
          status.textContent = error.message;
        }
      }, "primary")));
  try {
    area.value = (await call("localGet", { message: view.id, key: "note" })).value ?? "";
  } catch (error) {
    status.textContent = error.message;
  }
}

async function openReceipts(view) {
  const list = el("ul", { className: "receipts" });
  openDialog(el("h2", { text: "Receipts" }), list, el("div", { className: "form-actions" }, button("Close", closeDialog)));
  try {
    const receipts = await call("receipts", { chat: state.current.id, message: view.id });
    const when = (millis) => (millis ? new Date(millis).toLocaleString() : "");
    for (const receipt of receipts) {
      const status = receipt.read ? `read ${when(receipt.readAtMillis)}` : receipt.delivered ? `delivered ${when(receipt.deliveredAtMillis)}` : "not delivered yet";
      list.append(el("li", {}, el("strong", {}, nameRun(receipt.name, receipt.member)), ` — ${status}`));
    }
    if (receipts.length === 0) list.append(el("li", { className: "empty", text: "Nobody else is in this chat." }));
  } catch (error) {
    list.append(el("li", { className: "form-error", text: error.message }));
  }
}

async function openNewChat() {
  await refreshContacts();
  openDialog(newChatForm(state.contacts, {
    toast,
    onDone: async (chat) => {
      closeDialog();
      if (!chat) return;
      await refreshChats();
      openChat(state.chats.find((listed) => listed.id === chat.id) ?? chat);
    },
  }));
}

function openNewPoll() {
  if (!state.current) return;
  openDialog(newPollForm(state.current.id, { toast, onDone: () => closeDialog() }));
}

async function openContacts() {
  const view = await contactsView({ toast, onChanged: () => { refreshContacts(); refreshChats(); refreshInvites(); } });
  openDialog(view, el("div", { className: "form-actions" }, button("Close", closeDialog)));
}

async function showMembers() {
  const pane = $("members-pane");
  pane.hidden = false;
  if (!state.current) return;
  await refreshContacts();
  await renderMembers(pane, state.current, {
    me: state.me, contacts: state.contacts, toast,
    onChatChanged: async () => {
      await refreshChats();
      showMembers();
    },
  });
}

// MARK: start

async function start() {
  // Asked at once, side by side: the chat list does not wait for the status's answer to be asked.
  const chats = call("chatList");
  chats.catch(() => {}); // reported by refreshChats, or moot when the status fails
  let status;
  try {
    status = await call("status");
  } catch (error) {
    if (error.status !== 401) toast(error.message);
    return;
  }
  state.me = status.peer;
  // The key's name, as the node knows it (its key file), else the key's first digits.
  $("me").replaceChildren("You: ", isolated(displayName(status.name, state.me), "name"), ` · ${state.me.slice(0, 8)}`);
  // A notification's chat, as the list has it now (its view may have changed since it was shown).
  const openNotified = (chat) => openChat(state.chats.find((listed) => listed.id === chat.id) ?? chat);
  state.notifier = new Notifier({ toggle: $("notify"), me: state.me, onOpen: openNotified, toast });
  state.socket = new WatchSocket({ onEvent, onError: onSocketError, onStatus: onSocketStatus });
  const lists = Promise.all([refreshContacts(), refreshInvites()]);
  await refreshChats(chats);
  // Opened once the chat list is drawn: its handshake does not compete with the first answers.
  state.socket.connect();
  await lists;

  attachControls({
    attach: $("attach"), input: $("attach-input"), zone: $("chat"), hint: $("drop-hint"), status: $("upload-status"),
    chat: () => state.current?.id ?? null, toast,
  });
  $("composer").addEventListener("submit", sendMessage);
  $("composer-text").addEventListener("input", typing);
  $("composer-text").addEventListener("blur", stopTyping);
  $("composer-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) sendMessage(event);
  });
  $("new-chat").addEventListener("click", openNewChat);
  $("new-poll").addEventListener("click", openNewPoll);
  $("mute").addEventListener("click", toggleMute);
  $("show-contacts").addEventListener("click", openContacts);
  $("log-out").addEventListener("click", logOutHere);
  $("back").addEventListener("click", closeChat);
  $("toggle-members").addEventListener("click", () => {
    if ($("members-pane").hidden) showMembers();
    else $("members-pane").hidden = true;
  });
  $("dialog").addEventListener("click", (event) => {
    if (event.target === $("dialog")) closeDialog(); // a click on the backdrop
  });
  searchBox({
    form: $("search"), input: $("search-text"), results: $("search-results"), toast,
    chats: async (ids) => {
      if (ids.some((id) => !state.chats.some((listed) => listed.id === id))) await refreshChats();
      return state.chats;
    },
    open: async (chatId) => {
      if (!state.chats.some((listed) => listed.id === chatId)) await refreshChats();
      const chat = state.chats.find((listed) => listed.id === chatId);
      if (!chat) return null;
      openChat(chat);
      return state.timeline;
    },
  });

  setInterval(refreshChats, 5000);
  setInterval(refreshInvites, 10_000);
  setInterval(tickCountdowns, 1000);
  setInterval(() => {
    state.timeline?.refreshStates().catch(() => {});
    if (state.current && !$("members-pane").hidden) showMembers();
  }, 4000);
}

start();
