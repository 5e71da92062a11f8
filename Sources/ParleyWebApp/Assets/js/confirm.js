// Asking before an action that cannot be taken back (removing a member re-keys the chat): a modal
// dialog that says what will happen, answered with a button or Escape (which cancels).

import { button, el } from "./dom.js";

/**
 * Shows `title` and `explanation` (each a list of nodes and strings) with Cancel and `confirmLabel`; resolves true
 * when the user confirms, false on Cancel, Escape or a click on the backdrop.
 */
export function confirmAction({ title, explanation, confirmLabel }) {
  return new Promise((resolve) => {
    const heading = el("h2", {}, ...title);
    const dialog = el("dialog", { className: "dialog confirm", attrs: { role: "alertdialog" } });
    const finish = (confirmed) => {
      dialog.close();
      dialog.remove();
      resolve(confirmed);
    };
    dialog.append(
      heading,
      el("p", { className: "confirm-explanation" }, ...explanation),
      el("div", { className: "form-actions" },
        button("Cancel", () => finish(false)),
        button(confirmLabel, () => finish(true), "primary danger")));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      finish(false);
    });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("button").focus();
  });
}
