// The website settings' accent colour: a colour picker beside the #rrggbb field, each following
// the other (the field stays the form's value: blank is the theme's own colour, which a picker
// cannot say). Without the script the field alone works.
const accentText = document.getElementById('accent_color');
const accentPick = document.getElementById('accent_pick');
if (accentText && accentPick) {
  const valid = (v) => /^#[0-9a-fA-F]{6}$/.test(v.trim());
  accentPick.hidden = false;
  if (valid(accentText.value)) accentPick.value = accentText.value.trim().toLowerCase();
  accentPick.addEventListener('input', () => {
    accentText.value = accentPick.value;
  });
  accentText.addEventListener('input', () => {
    if (valid(accentText.value)) accentPick.value = accentText.value.trim().toLowerCase();
  });
}
