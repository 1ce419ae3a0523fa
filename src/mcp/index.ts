/** memledger over the Model Context Protocol: the server and its tools' schemas. */
export { createMcpServer, MCP_INSTRUCTIONS, type McpServerOptions } from './mcp.server.js';
export { MCP_SOURCE, type MemoryOf } from './memory-write.tools.js';
export { DATA_NOTE } from './quoted-content.render.js';
export { ERROR_META_KEY } from './tool-result.js';
export * from './tool-inputs.schemas.js';
export * from './tool-outputs.schemas.js';
export { isWithheld, type ReturnedItem, type WithheldItem } from './withheld-content.js';
