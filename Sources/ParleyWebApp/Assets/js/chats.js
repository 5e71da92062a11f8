// The chat list (direct chats, then groups, each by last activity, as `chatList` orders them) and
// the "new chat" form. Chat names and previews come from peers: text only.

import { call } from "./api.js";
import { ago, button, displayName, el } from "./dom.js";

export function renderChatList(container, chats, { current, me, onOpen }) {
  const sections = [["direct", "Direct"], ["group", "Groups"]].map(([kind, title]) => {
    const list = el("ul");
    for (const chat of chats.filter((chat) => chat.kind === kind)) list.append(el("li", {}, chatItem(chat, current, me, onOpen)));
    if (list.children.length === 0) list.append(el("li", { className: "empty", text: kind === "direct" ? "No direct chats" : "No groups" }));
    return el("section", { className: "chat-section" }, el("h2", { text: title }), list);
  });
  container.replaceChildren(...sections);
}

function chatItem(chat, current, me, onOpen) {
  const last = chat.lastMessage;
  const preview = last
    ? `${last.author === me ? "You" : displayName(last.authorName, last.author)}: ${last.kind === "poll" ? "📊 poll" : last.text}`
    : chat.waitingFor.length > 0 ? `Waiting for ${chat.waitingFor.map((member) => displayName(member.name, member.id)).join(", ")}` : "No messages yet";
  const item = el("button", {
    className: `chat-item${chat.id === current ? " current" : ""}`,
    attrs: { type: "button", "data-chat": chat.id, "aria-current": chat.id === current ? "true" : false },
    on: { click: () => onOpen(chat) },
  },
  el("span", { className: "chat-name", text: chat.name }, forkMark(chat)),
  el("span", { className: "chat-when", text: ago(chat.lastActivityMillis) }),
  el("span", { className: "chat-preview", text: preview.length > 80 ? `${preview.slice(0, 80)}…` : preview }));
  if (chat.unread > 0) item.append(el("span", { className: "badge", text: String(chat.unread), title: `${chat.unread} unread` }));
  return item;
}

/** After a chat's name when members signed two histories there (`ChatView.forked`): "⚠", named in its title. */
function forkMark(chat) {
  const forked = chat.forked ?? [];
  if (forked.length === 0) return null;
  const names = forked.map((member) => displayName(member.name, member.id)).join(", ");
  return el("span", { className: "chat-forked", text: " ⚠", title: `Signed two histories: ${names}` });
}

/** The "new chat" form: a group (title, members) or a direct chat (one contact). */
export function newChatForm(contacts, { onDone, toast }) {
  const kindGroup = el("input", { attrs: { type: "radio", name: "kind", value: "group", checked: true } });
  const kindDirect = el("input", { attrs: { type: "radio", name: "kind", value: "direct" } });
  const title = el("input", { attrs: { type: "text", maxlength: "256", name: "title", placeholder: "Lunch" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  const memberList = el("div", { className: "member-choices" });
  const renderMembers = () => {
    const type = kindDirect.checked ? "radio" : "checkbox";
    memberList.replaceChildren(...contacts.map((contact) =>
      el("label", { className: "check" }, el("input", { attrs: { type, name: "member", value: contact.name } }), ` ${contact.name}`)));
    if (contacts.length === 0) memberList.append(el("p", { className: "hint", text: "Add contacts first (Contacts)." }));
  };
  kindGroup.addEventListener("change", renderMembers);
  kindDirect.addEventListener("change", renderMembers);
  renderMembers();

  const form = el("form", { className: "chat-form" },
    el("h2", { text: "New chat" }),
    el("fieldset", {}, el("legend", { text: "Kind" }),
      el("label", { className: "check" }, kindGroup, " Group"), el("label", { className: "check" }, kindDirect, " Direct (one person)")),
    el("label", { className: "field" }, el("span", { text: "Title (optional for a direct chat)" }), title),
    el("fieldset", {}, el("legend", { text: "Members" }), memberList),
    error,
    el("div", { className: "form-actions" },
      button("Cancel", () => onDone(null)),
      el("button", { text: "Create", className: "primary", attrs: { type: "submit" } })));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const members = [...memberList.querySelectorAll("input:checked")].map((input) => input.value);
    const kind = kindDirect.checked ? "direct" : "group";
    if (kind === "group" && !title.value.trim()) {
      error.textContent = "A group needs a title.";
      return;
    }
    if (kind === "direct" && members.length !== 1) {
      error.textContent = "A direct chat is with exactly one contact.";
      return;
    }
    try {
      onDone(await call("chatCreate", { title: title.value.trim(), members, kind }));
    } catch (failure) {
      error.textContent = failure.message;
      toast?.(failure.message);
    }
  });
  return form;
}
