// The member pane: who is in the chat, who is online (presence dots) and when the others were last
// seen; the group's creator adds and removes members here.

import { call } from "./api.js";
import { avatar } from "./avatars.js";
import { confirmAction } from "./confirm.js";
import { ago, button, displayName, el, isolated, joined, nameRun } from "./dom.js";
import { memberForkNote } from "./forks.js";

/** Fills `pane` for `chat`; `contacts` offer the members to add. */
export async function renderMembers(pane, chat, { me, contacts, toast, onChatChanged }) {
  let members;
  try {
    members = await call("members", { chat: chat.id });
  } catch (error) {
    pane.replaceChildren(el("p", { className: "form-error", text: error.message }));
    return;
  }
  const creator = chat.kind === "group" && chat.creator === me;
  const change = async (name, values) => {
    try {
      onChatChanged(await call(name, values));
    } catch (error) {
      toast(error.message);
    }
  };
  const list = el("ul", { className: "member-list" });
  for (const member of members) {
    const online = member.via ? ["online via ", nameRun(member.viaName, member.via)] : ["online"];
    const status = member.online ? online : [member.lastSeenAt ? `last seen ${ago(member.lastSeenAt)}` : "offline"];
    const row = el("li", { className: "member" },
      el("span", { className: "member-face" }, avatar(member.id, displayName(member.name, member.id)),
        el("span", { className: `dot ${member.online ? "online" : "offline"}`, title: member.online ? "Online" : "Offline", attrs: { "aria-hidden": "true" } })),
      el("span", { className: "member-name" }, nameRun(member.name, member.id), member.you ? " (you)" : ""),
      el("span", { className: "member-status" }, ...(member.you ? [] : status)),
      memberForkNote(member));
    if (creator && !member.you) {
      row.append(button("Remove", async () => {
        if (await confirmRemoval(chat, member)) change("chatRemoveMembers", { chat: chat.id, members: [member.id] });
      }, "small danger"));
    }
    list.append(row);
  }
  const parts = [el("h2", { text: `Members (${members.length})` }), list];
  if (chat.waitingFor.length > 0) {
    parts.push(el("p", { className: "hint" }, "Waiting for ", ...joined(chat.waitingFor.map((member) => nameRun(member.name, member.id))), " to accept"));
  }
  if (chat.noRoute.length > 0) {
    const names = joined(chat.noRoute.map((member) => nameRun(member.name, member.id)));
    parts.push(el("p", { className: "hint warning" }, "No address known for ", ...names,
      ": add one to the contact (parley contacts add … --addr HOST:PORT) or reach a common member"));
  }
  if (creator) {
    const present = new Set(members.map((member) => member.id));
    const candidates = contacts.filter((contact) => !present.has(contact.id));
    if (candidates.length > 0) {
      const select = el("select", { attrs: { "aria-label": "Contact to add" } },
        ...candidates.map((contact) => el("option", { text: contact.name, attrs: { value: contact.id } })));
      parts.push(el("div", { className: "input-row" }, select,
        button("Add", () => change("chatAddMembers", { chat: chat.id, members: [select.value] }))));
    }
  }
  pane.replaceChildren(...parts);
}

/** Asks before removing `member`: removal re-keys the chat, and only the creator can add them back. */
function confirmRemoval(chat, member) {
  return confirmAction({
    title: ["Remove ", nameRun(member.name, member.id), "?"],
    explanation: [nameRun(member.name, member.id), " leaves ", isolated(chat.name), ". The chat gets a new key: ",
      nameRun(member.name, member.id), " keeps the messages already received but can read nothing sent from now on. "
      + "You can add them back later; they will not get what was sent in between."],
    confirmLabel: "Remove from the chat",
  });
}
