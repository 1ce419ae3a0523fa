/**
 * Unknown `/api` routes: matched last, after the token guard, so an unauthenticated caller
 * cannot probe which routes exist. Everything outside `/api` is the web page's static files.
 */
import { All, Controller } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HttpApiError } from './http-error.js';

/** Answers `ROUTE_NOT_FOUND` for any `/api` path no other route takes. */
@ApiExcludeController()
@Controller('api')
export class NotFoundController {
  /** Any method, any path under `/api`. */
  @All('*path')
  notFound(): never {
    throw new HttpApiError('ROUTE_NOT_FOUND', 'No API route matches this method and path.');
  }
}
