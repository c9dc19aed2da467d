// Quarry dashboard: copy buttons and a confirmation before revoking. Everything else works
// without this file (forms post and redirect).
function announce(text) {
  const live = document.getElementById("live");
  if (live) {
    live.textContent = "";
    window.setTimeout(() => {
      live.textContent = text;
    }, 30);
  }
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain http on another host: the clipboard API is not offered; select and copy instead.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) return;
  const label = button.textContent;
  try {
    await copyText(source.textContent);
    button.textContent = "Copied";
    button.classList.add("done");
    announce("Copied to the clipboard.");
  } catch {
    // Could not copy: select the text so the person can copy it themselves.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    button.textContent = "Press Ctrl+C";
    announce("Copying is not allowed here; the text is selected.");
  }
  window.setTimeout(() => {
    button.textContent = label;
    button.classList.remove("done");
  }, 2000);
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.getAttribute("data-confirm") : null;
  if (question && !window.confirm(question)) event.preventDefault();
});
