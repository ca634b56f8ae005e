import { greet } from "./greet";

console.log(greet("a"));
console.log(greet("b"));
