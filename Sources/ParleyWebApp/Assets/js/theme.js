// Light or dark: the system's setting (prefers-color-scheme) unless the user picked one here, which
// this browser remembers. The stylesheet's colours are `light-dark()` pairs: the choice is only the
// root's `color-scheme`, set through `data-theme` ("light" or "dark"; absent for the system's).

const storageKey = "parley-theme";
/** The choices, in the order the toggle goes through them. */
export const themes = ["system", "light", "dark"];
const labels = { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" };

/** The stored choice, "system" when none (or something else) is stored. */
export function storedTheme() {
  const stored = localStorage.getItem(storageKey);
  return themes.includes(stored) ? stored : "system";
}

/** Applies `theme` to the page and remembers it. */
export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === "system") {
    delete root.dataset.theme;
    localStorage.removeItem(storageKey);
  } else {
    root.dataset.theme = theme;
    localStorage.setItem(storageKey, theme);
  }
}

/** Makes `toggle` (a button) go system → light → dark → system, saying the current choice. */
export function themeToggle(toggle) {
  const show = (theme) => {
    toggle.textContent = labels[theme];
    toggle.title = theme === "system" ? "Colours follow the system's light or dark setting" : `Always ${theme}`;
  };
  show(storedTheme());
  toggle.addEventListener("click", () => {
    const next = themes[(themes.indexOf(storedTheme()) + 1) % themes.length];
    applyTheme(next);
    show(next);
  });
}

// At once, as this module loads: the page is drawn in the chosen colours from its first frame.
applyTheme(storedTheme());
