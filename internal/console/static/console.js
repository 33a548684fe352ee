// Comforts for the adcamp console. Every page works without this file.
"use strict";

// Copy buttons: <button data-copy="ID" hidden> copies the text of the
// element ID. They are hidden until this script shows them, so that
// without JavaScript no button does nothing.
document.addEventListener("DOMContentLoaded", () => {
  if (!navigator.clipboard) return;
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) continue;
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", async () => {
      const text = source.matches("ol, ul")
        ? Array.from(source.querySelectorAll("li"), (li) => li.textContent.trim()).join("\n")
        : source.textContent.trim();
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = "Copied";
      } catch {
        button.textContent = "Select and copy by hand";
      }
      setTimeout(() => { button.textContent = label; }, 2500);
    });
  }
});

// A page restored from the back/forward cache shows what it showed when
// it was left, signed in perhaps, though its session may have ended since
// (signed out in another tab, or everywhere): hide it and load it again,
// so that the server says what it is now.
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  document.documentElement.style.visibility = "hidden";
  location.reload();
});
