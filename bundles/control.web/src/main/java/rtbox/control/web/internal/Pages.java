package rtbox.control.web.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardResource;

/**
 * The pages: this bundle's {@code ui/} folder served as {@code /ui/} in the control room's
 * servlet context (docs/control-api.md, "Where it is served"). Static files only: every
 * page loads, then asks the JSON API who is logged in.
 */
@Component(service = Pages.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardResource(pattern = "/ui/*", prefix = "/ui")
public class Pages {
}
