package rtbox.control.internal;

/** A request the API answers with 400 and this message. */
class BadRequest extends RuntimeException {
    final int status;

    BadRequest(String message) {
        this(400, message);
    }

    BadRequest(int status, String message) {
        super(message);
        this.status = status;
    }
}
