// Formatting helpers for the shop's web page.

function pad(s, width) {
  while (s.length < width) {
    s = " " + s;
  }
  return s;
}

function money(cents) {
  return pad((cents / 100).toFixed(2), 8);
}

export function line(name, cents) {
  return name + money(cents);
}
