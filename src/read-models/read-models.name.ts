/** The read models' name on the projection runtime (for their handler and `applied` listeners). */
export const READ_MODELS = 'read-models';
