// Contacts (add by pasting a public key, or by reading a .pub file in the browser) and the invites
// waiting for this user. A .pub file is one line: "parley-public-key-v1 <64 hex digits> [name]".

import { call } from "./api.js";
import { el, isolated } from "./dom.js";
import { inviteCard } from "./invites.js";

/** The key and name of a .pub file's text, or of a pasted key (64 hex digits); null if neither. */
export function parsePublicKey(text) {
  const fields = text.trim().split(/\s+/);
  if (fields[0] === "parley-public-key-v1" && /^[0-9a-fA-F]{64}$/.test(fields[1] ?? "")) {
    return { key: fields[1].toLowerCase(), name: fields[2] ?? "" };
  }
  if (fields.length === 1 && /^[0-9a-fA-F]{64}$/.test(fields[0])) return { key: fields[0].toLowerCase(), name: "" };
  return null;
}

/** The contacts view: the list, the add form and the pending invites. */
export async function contactsView({ toast, onChanged }) {
  const view = el("div", { className: "contacts" });
  const render = async () => {
    let contacts = [], invites = [];
    try {
      [contacts, invites] = await Promise.all([call("contactsList"), call("invites")]);
    } catch (error) {
      toast(error.message);
    }
    view.replaceChildren(el("h2", { text: "Contacts" }), contactList(contacts), addForm(toast, async () => {
      await render();
      onChanged();
    }), inviteList(invites, toast, async () => {
      await render();
      onChanged();
    }));
  };
  await render();
  return view;
}

function contactList(contacts) {
  const list = el("ul", { className: "contact-list" });
  for (const contact of contacts) {
    list.append(el("li", {},
      el("span", { className: "contact-name", text: contact.name }),
      el("code", { className: "contact-key", text: `${contact.id.slice(0, 16)}…`, title: contact.id }),
      contact.address ? el("span", { className: "hint", text: ` ${contact.address}` }) : null));
  }
  if (contacts.length === 0) list.append(el("li", { className: "empty", text: "No contacts yet" }));
  return list;
}

function addForm(toast, onAdded) {
  const name = el("input", { attrs: { type: "text", maxlength: "64", name: "name", required: true, placeholder: "bob" } });
  const key = el("textarea", { attrs: { rows: "2", name: "key", placeholder: "64 hex digits, or the line of a .pub file" } });
  const address = el("input", { attrs: { type: "text", name: "address", placeholder: "10.0.0.2:7001 (optional)" } });
  const file = el("input", { attrs: { type: "file", accept: ".pub,text/plain", "aria-label": "Public key file" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  file.addEventListener("change", () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    // Read here, in the browser: the file never goes anywhere but into the form.
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      const parsed = parsePublicKey(String(reader.result ?? ""));
      if (!parsed) {
        error.replaceChildren(isolated(chosen.name), " is not a Parley public key file.");
        return;
      }
      key.value = parsed.key;
      if (!name.value && parsed.name) name.value = parsed.name;
      error.textContent = "";
    });
    reader.readAsText(chosen.size > 4096 ? chosen.slice(0, 4096) : chosen);
  });
  const form = el("form", { className: "contact-form" },
    el("h3", { text: "Add a contact" }),
    el("label", { className: "field" }, el("span", { text: "Public key" }), key),
    el("label", { className: "field" }, el("span", { text: "…or a .pub file" }), file),
    el("label", { className: "field" }, el("span", { text: "Name" }), name),
    el("label", { className: "field" }, el("span", { text: "Address" }), address),
    error,
    el("div", { className: "form-actions" }, el("button", { text: "Add contact", className: "primary", attrs: { type: "submit" } })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const parsed = parsePublicKey(key.value);
    if (!parsed) {
      error.textContent = "The key must be 64 hex digits (or the line of a .pub file).";
      return;
    }
    const values = { peer: parsed.key, name: name.value.trim() || parsed.name };
    if (!values.name) {
      error.textContent = "Give the contact a name.";
      return;
    }
    if (address.value.trim()) values.address = address.value.trim();
    try {
      await call("contactsAdd", values);
      toast(`Added ${values.name}`);
      await onAdded();
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  return form;
}

function inviteList(invites, toast, onAnswered) {
  const section = el("section", { className: "invites" }, el("h3", { text: `Invites waiting (${invites.length})` }));
  if (invites.length === 0) section.append(el("p", { className: "hint", text: "No invites from people outside your contacts." }));
  for (const invite of invites) section.append(inviteCard(invite, { toast, onAnswered }));
  return section;
}
