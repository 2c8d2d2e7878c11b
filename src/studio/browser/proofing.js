// The proofing screen's Copy buttons: each copies its field's file names to the clipboard
// (the field itself stays there to select by hand, without script or clipboard access).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  if (!field) continue;
  button.parentElement?.classList.add('on');
  const label = button.textContent;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      // No clipboard access (an old browser, a denied permission): the text is selected to copy by hand.
      field.focus();
      field.select();
      studio.announce('Selected: press Ctrl+C or ⌘C to copy.');
      return;
    }
    button.textContent = 'Copied';
    studio.announce(`${label}: copied.`);
    setTimeout(() => (button.textContent = label), 2000);
  });
}
