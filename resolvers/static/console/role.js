// Which role the current key has on a scope, asked of the server. Until the server can say
// (or when asking fails), the answer is null and the console offers every action: the server
// refuses what the key may not do, and the console shows that refusal in words.

export async function whoAmI(_scope) {
  return null;
}
