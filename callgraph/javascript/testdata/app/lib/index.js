export * from './shapes.js';
export { default as makeShape } from './shapes.js';
