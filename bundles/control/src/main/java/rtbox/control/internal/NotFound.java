package rtbox.control.internal;

/** 404 with this message. */
final class NotFound extends BadRequest {
    NotFound(String message) {
        super(404, message);
    }
}
